// SPDX-License-Identifier: MIT
/*
 * Entry blocks decoded with Zydis, loaded when a profile first needs one (like the gate's
 * libgit2). Zydis knows every x86-64 encoding (prefixes, VEX/EVEX, endbr64), which a
 * length decoder of our own would have to relearn. Measured on sqlite3's 776 KB of code:
 * Zydis decodes an instruction in 70-100 ns; capstone 4 in 250-400 ns, because it always
 * formats the instruction's text, and linked statically its tables added 77000 start-up
 * relocations (twice the CPU time of pgo --version). Debian ships Zydis as a shared library
 * only; opening it costs a convert about 0.1 ms, and nothing else.
 */
#include <Zydis/Zydis.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>

#include "symbolize/entryblock.h"
#include "symbolize/symtab.h"
#include "lib/alloc.h"
#include "lib/report.h"

#ifndef CONVERT_ZYDIS_SONAME
#define CONVERT_ZYDIS_SONAME "libZydis.so"
#endif

struct symbolize_entryblock {
	struct symbolize_symtab *st;
	ZydisDecoder dec;
	ZyanStatus (*decode)(const ZydisDecoder *, ZydisDecoderContext *, const void *, ZyanUSize,
			     ZydisDecodedInstruction *);
};

static struct {
	__typeof__(ZydisDecoderInit) *init;
	__typeof__(ZydisDecoderEnableMode) *enable_mode;
	__typeof__(ZydisDecoderDecodeInstruction) *decode;
} zydis;

/* Load Zydis once. 0, or -1 if it is missing (said once, as a warning). */
static int zydis_load(void)
{
	static int state; /* 0 not tried, 1 loaded, -1 missing */
	void *h;

	if (state)
		return state > 0 ? 0 : -1;
	state = -1;
	h = dlopen(CONVERT_ZYDIS_SONAME, RTLD_NOW | RTLD_LOCAL);
	/* POSIX: a function pointer is stored through a void * (dlsym's result) */
	if (!h || !(*(void **)&zydis.init = dlsym(h, "ZydisDecoderInit")) ||
	    !(*(void **)&zydis.enable_mode = dlsym(h, "ZydisDecoderEnableMode")) ||
	    !(*(void **)&zydis.decode = dlsym(h, "ZydisDecoderDecodeInstruction"))) {
		pgo_warn("cannot load %s (%s): head counts come from entry lines only, which can "
			 "make gcc scale whole functions down; install it (make deps, or apt-get "
			 "install libzydis-dev)", CONVERT_ZYDIS_SONAME, h ? "a function is missing" : dlerror());
		return -1;
	}
	state = 1;
	return 0;
}

int symbolize_entryblock_open(struct symbolize_symtab *st, struct symbolize_entryblock **out)
{
	struct symbolize_entryblock *eb;

	*out = NULL;
	if (symbolize_symtab_machine(st) != EM_X86_64 || zydis_load() < 0)
		return 0;
	eb = pgo_calloc(1, sizeof(*eb));
	if (!eb)
		return -1;
	eb->st = st;
	if (!ZYAN_SUCCESS(zydis.init(&eb->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) {
		free(eb);
		return pgo_error("cannot start the x86-64 decoder (%s)", CONVERT_ZYDIS_SONAME);
	}
	/* lengths and categories only: no operands */
	zydis.enable_mode(&eb->dec, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE);
	*out = eb;
	return 0;
}

void symbolize_entryblock_free(struct symbolize_entryblock *eb)
{
	free(eb);
}

/*
 * A nop: straight-line code has no use for one, so it is padding that aligns the next
 * instruction, a branch target (gcc aligns loop heads). It ends the entry block and is not
 * part of it: it has the line of the block it aligns (in a function that begins with its
 * loop, the loop's, which runs more often than the entry). A head that comes after no
 * padding is not seen; finding every branch target would mean decoding whole functions,
 * many times the cost of a convert.
 */
static int is_padding(const ZydisDecodedInstruction *in)
{
	return in->meta.category == ZYDIS_CATEGORY_NOP || in->mnemonic == ZYDIS_MNEMONIC_NOP;
}

/* Does the instruction end the entry block? Jumps, returns and traps do; calls do not. */
static int ends_block(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return 1;
	default:
		return in->mnemonic == ZYDIS_MNEMONIC_UD2 || in->mnemonic == ZYDIS_MNEMONIC_HLT;
	}
}

size_t symbolize_entryblock_insns(struct symbolize_entryblock *eb, uint64_t start, uint64_t size,
				uint64_t *insns, size_t max)
{
	size_t len, at = 0, n = 0;
	const uint8_t *code;
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction in;

	if (!eb || !max || !(code = symbolize_symtab_bytes(eb->st, start, &len)))
		return 0;
	if (size && size < len)
		len = size;
	while (n < max && at < len && ZYAN_SUCCESS(zydis.decode(&eb->dec, &ctx, code + at, len - at, &in))) {
		if (is_padding(&in))
			return n;
		insns[n++] = start + at;
		if (ends_block(&in))
			return n;
		at += in.length;
	}
	return 0;
}
