// SPDX-License-Identifier: MIT
/*
 * minivm: a small stack-based bytecode interpreter, the example program of `make demo` and of
 * bench/pgo.sh. Interpreters are where profile-guided optimisation pays most: one big dispatch
 * switch whose hot cases the compiler cannot tell from the cold ones, bounds checks that never
 * fire, and helpers whose inlining only pays on the hot path.
 *
 *   minivm PROGRAM N     run one built-in program (sieve, fib, sort, hash, collatz, matrix) N times
 *                        and print a checksum; "train" and "eval" run all of them on different sizes
 *                        and in different proportions, so a profile trained on one input can be
 *                        evaluated on another.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op {
	OP_PUSH, OP_POP, OP_DUP, OP_SWAP, OP_OVER,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_AND, OP_XOR, OP_SHL, OP_SHR,
	OP_LT, OP_EQ, OP_NOT,
	OP_LOAD, OP_STORE, OP_ALOAD, OP_ASTORE,
	OP_JMP, OP_JZ, OP_JNZ, OP_CALL, OP_RET, OP_HALT,
	OP_NOP,
};

struct insn {
	enum op op;
	int64_t arg;
};

#define STACK_MAX 4096
#define FRAMES_MAX 1024
#define VARS 16
#define HEAP (1 << 16)

struct vm {
	int64_t stack[STACK_MAX];
	int sp;
	int64_t vars[FRAMES_MAX][VARS];
	int ret[FRAMES_MAX];
	int fp;
	int64_t heap[HEAP];
	uint64_t steps;
};

static void vm_fail(const char *what, int pc, int64_t arg)
{
	/* Cold path: never taken by well-formed programs. */
	fprintf(stderr, "minivm: %s at pc %d (arg %lld)\n", what, pc, (long long)arg);
	exit(2);
}

static inline void push(struct vm *vm, int64_t v, int pc)
{
	if (vm->sp >= STACK_MAX)
		vm_fail("stack overflow", pc, v);
	vm->stack[vm->sp++] = v;
}

static inline int64_t pop(struct vm *vm, int pc)
{
	if (vm->sp <= 0)
		vm_fail("stack underflow", pc, 0);
	return vm->stack[--vm->sp];
}

static inline int64_t heap_index(int64_t i, int pc)
{
	if (i < 0 || i >= HEAP)
		vm_fail("heap index out of range", pc, i);
	return i;
}

static int64_t run(struct vm *vm, const struct insn *code, int len)
{
	int pc = 0;
	int64_t a, b;

	vm->sp = 0;
	vm->fp = 0;
	for (;;) {
		if (pc < 0 || pc >= len)
			vm_fail("pc out of range", pc, len);
		const struct insn *in = &code[pc++];
		vm->steps++;
		switch (in->op) {
		case OP_PUSH: push(vm, in->arg, pc); break;
		case OP_POP: (void)pop(vm, pc); break;
		case OP_DUP: a = pop(vm, pc); push(vm, a, pc); push(vm, a, pc); break;
		case OP_SWAP: a = pop(vm, pc); b = pop(vm, pc); push(vm, a, pc); push(vm, b, pc); break;
		case OP_OVER: a = pop(vm, pc); b = pop(vm, pc); push(vm, b, pc); push(vm, a, pc); push(vm, b, pc); break;
		case OP_ADD: b = pop(vm, pc); a = pop(vm, pc); push(vm, a + b, pc); break;
		case OP_SUB: b = pop(vm, pc); a = pop(vm, pc); push(vm, a - b, pc); break;
		case OP_MUL: b = pop(vm, pc); a = pop(vm, pc); push(vm, a * b, pc); break;
		case OP_DIV:
			b = pop(vm, pc); a = pop(vm, pc);
			if (b == 0)
				vm_fail("division by zero", pc, a);
			push(vm, a / b, pc);
			break;
		case OP_MOD:
			b = pop(vm, pc); a = pop(vm, pc);
			if (b == 0)
				vm_fail("modulo by zero", pc, a);
			push(vm, a % b, pc);
			break;
		case OP_AND: b = pop(vm, pc); a = pop(vm, pc); push(vm, a & b, pc); break;
		case OP_XOR: b = pop(vm, pc); a = pop(vm, pc); push(vm, a ^ b, pc); break;
		case OP_SHL: b = pop(vm, pc); a = pop(vm, pc); push(vm, (int64_t)((uint64_t)a << (b & 63)), pc); break;
		case OP_SHR: b = pop(vm, pc); a = pop(vm, pc); push(vm, (int64_t)((uint64_t)a >> (b & 63)), pc); break;
		case OP_LT: b = pop(vm, pc); a = pop(vm, pc); push(vm, a < b, pc); break;
		case OP_EQ: b = pop(vm, pc); a = pop(vm, pc); push(vm, a == b, pc); break;
		case OP_NOT: a = pop(vm, pc); push(vm, !a, pc); break;
		case OP_LOAD:
			if (in->arg < 0 || in->arg >= VARS)
				vm_fail("bad variable", pc, in->arg);
			push(vm, vm->vars[vm->fp][in->arg], pc);
			break;
		case OP_STORE:
			if (in->arg < 0 || in->arg >= VARS)
				vm_fail("bad variable", pc, in->arg);
			vm->vars[vm->fp][in->arg] = pop(vm, pc);
			break;
		case OP_ALOAD: a = heap_index(pop(vm, pc), pc); push(vm, vm->heap[a], pc); break;
		case OP_ASTORE: a = heap_index(pop(vm, pc), pc); b = pop(vm, pc); vm->heap[a] = b; break;
		case OP_JMP: pc = (int)in->arg; break;
		case OP_JZ: if (!pop(vm, pc)) pc = (int)in->arg; break;
		case OP_JNZ: if (pop(vm, pc)) pc = (int)in->arg; break;
		case OP_CALL:
			if (vm->fp + 1 >= FRAMES_MAX)
				vm_fail("call depth exceeded", pc, in->arg);
			vm->ret[++vm->fp] = pc;
			/* Arguments: the callee's variables 0..arg-1 come off the stack. */
			a = in->arg >> 16;
			for (int i = (int)a - 1; i >= 0; i--)
				vm->vars[vm->fp][i] = pop(vm, pc);
			pc = (int)(in->arg & 0xffff);
			break;
		case OP_RET:
			if (vm->fp == 0)
				vm_fail("return from top level", pc, 0);
			pc = vm->ret[vm->fp--];
			break;
		case OP_HALT: return vm->sp ? pop(vm, pc) : 0;
		case OP_NOP: break;
		default: vm_fail("bad opcode", pc, in->op);
		}
	}
}

/* A tiny assembler: labels are resolved in a second pass. */
struct prog {
	struct insn code[512];
	int len;
	int label[64];
	int fix_at[256], fix_label[256], nfix;
};

static void emit(struct prog *p, enum op op, int64_t arg) { p->code[p->len++] = (struct insn){ op, arg }; }
static void label(struct prog *p, int l) { p->label[l] = p->len; }
static void emitj(struct prog *p, enum op op, int l)
{
	p->fix_at[p->nfix] = p->len;
	p->fix_label[p->nfix++] = l;
	emit(p, op, 0);
}
static void emitcall(struct prog *p, int nargs, int l)
{
	p->fix_at[p->nfix] = p->len;
	p->fix_label[p->nfix++] = l | (nargs << 16);
	emit(p, OP_CALL, 0);
}
static void link_prog(struct prog *p)
{
	for (int i = 0; i < p->nfix; i++) {
		int l = p->fix_label[i] & 0xffff, hi = p->fix_label[i] >> 16;
		p->code[p->fix_at[i]].arg = ((int64_t)hi << 16) | p->label[l];
	}
}

/* for (v = from; v < to; v++) body, with v in variable VAR; the loop uses labels L and L+1. */
#define FOR_BEGIN(p, var, from, to, L) \
	emit(p, OP_PUSH, from); emit(p, OP_STORE, var); label(p, L); \
	emit(p, OP_LOAD, var); emit(p, OP_PUSH, to); emit(p, OP_LT, 0); emitj(p, OP_JZ, (L) + 1)
#define FOR_END(p, var, L) \
	emit(p, OP_LOAD, var); emit(p, OP_PUSH, 1); emit(p, OP_ADD, 0); emit(p, OP_STORE, var); \
	emitj(p, OP_JMP, L); label(p, (L) + 1)

static void prog_sieve(struct prog *p, int n)
{
	FOR_BEGIN(p, 0, 0, n, 0);
	emit(p, OP_PUSH, 1); emit(p, OP_LOAD, 0); emit(p, OP_ASTORE, 0);
	FOR_END(p, 0, 0);
	emit(p, OP_PUSH, 0); emit(p, OP_STORE, 2);
	FOR_BEGIN(p, 0, 2, n, 2);
	emit(p, OP_LOAD, 0); emit(p, OP_ALOAD, 0); emitj(p, OP_JZ, 5);
	emit(p, OP_LOAD, 2); emit(p, OP_PUSH, 1); emit(p, OP_ADD, 0); emit(p, OP_STORE, 2);
	emit(p, OP_LOAD, 0); emit(p, OP_DUP, 0); emit(p, OP_ADD, 0); emit(p, OP_STORE, 1);
	label(p, 6);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, n); emit(p, OP_LT, 0); emitj(p, OP_JZ, 5);
	emit(p, OP_PUSH, 0); emit(p, OP_LOAD, 1); emit(p, OP_ASTORE, 0);
	emit(p, OP_LOAD, 1); emit(p, OP_LOAD, 0); emit(p, OP_ADD, 0); emit(p, OP_STORE, 1);
	emitj(p, OP_JMP, 6);
	label(p, 5);
	FOR_END(p, 0, 2);
	emit(p, OP_LOAD, 2); emit(p, OP_HALT, 0);
}

static void prog_fib(struct prog *p, int n)
{
	emit(p, OP_PUSH, n); emitcall(p, 1, 10); emit(p, OP_HALT, 0);
	label(p, 10);	/* fib(v0) */
	emit(p, OP_LOAD, 0); emit(p, OP_PUSH, 2); emit(p, OP_LT, 0); emitj(p, OP_JZ, 11);
	emit(p, OP_LOAD, 0); emit(p, OP_RET, 0);
	label(p, 11);
	emit(p, OP_LOAD, 0); emit(p, OP_PUSH, 1); emit(p, OP_SUB, 0); emitcall(p, 1, 10);
	emit(p, OP_LOAD, 0); emit(p, OP_PUSH, 2); emit(p, OP_SUB, 0); emitcall(p, 1, 10);
	emit(p, OP_ADD, 0); emit(p, OP_RET, 0);
}

static void prog_sort(struct prog *p, int n)
{
	/* Fill heap[0..n) with an LCG, then insertion sort it, then sum a few probes. */
	emit(p, OP_PUSH, 12345); emit(p, OP_STORE, 3);
	FOR_BEGIN(p, 0, 0, n, 0);
	emit(p, OP_LOAD, 3); emit(p, OP_PUSH, 1103515245); emit(p, OP_MUL, 0); emit(p, OP_PUSH, 12345);
	emit(p, OP_ADD, 0); emit(p, OP_PUSH, 0x7fffffff); emit(p, OP_AND, 0); emit(p, OP_DUP, 0);
	emit(p, OP_STORE, 3); emit(p, OP_LOAD, 0); emit(p, OP_ASTORE, 0);
	FOR_END(p, 0, 0);
	FOR_BEGIN(p, 0, 1, n, 2);
	emit(p, OP_LOAD, 0); emit(p, OP_ALOAD, 0); emit(p, OP_STORE, 4);
	emit(p, OP_LOAD, 0); emit(p, OP_STORE, 1);
	label(p, 6);
	emit(p, OP_LOAD, 1); emit(p, OP_NOT, 0); emitj(p, OP_JNZ, 7);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 1); emit(p, OP_SUB, 0); emit(p, OP_ALOAD, 0);
	emit(p, OP_LOAD, 4); emit(p, OP_LT, 0); emitj(p, OP_JNZ, 7);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 1); emit(p, OP_SUB, 0); emit(p, OP_ALOAD, 0);
	emit(p, OP_LOAD, 1); emit(p, OP_ASTORE, 0);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 1); emit(p, OP_SUB, 0); emit(p, OP_STORE, 1);
	emitj(p, OP_JMP, 6);
	label(p, 7);
	emit(p, OP_LOAD, 4); emit(p, OP_LOAD, 1); emit(p, OP_ASTORE, 0);
	FOR_END(p, 0, 2);
	emit(p, OP_PUSH, 0); emit(p, OP_ALOAD, 0); emit(p, OP_PUSH, n / 2); emit(p, OP_ALOAD, 0);
	emit(p, OP_XOR, 0); emit(p, OP_HALT, 0);
}

static void prog_hash(struct prog *p, int n)
{
	/* FNV-style mixing over a counter, with a shift-xor finaliser. */
	emit(p, OP_PUSH, 14695981039346656037ULL & 0x7fffffffffffffffLL); emit(p, OP_STORE, 1);
	FOR_BEGIN(p, 0, 0, n, 0);
	emit(p, OP_LOAD, 1); emit(p, OP_LOAD, 0); emit(p, OP_XOR, 0); emit(p, OP_PUSH, 1099511628211LL);
	emit(p, OP_MUL, 0); emit(p, OP_DUP, 0); emit(p, OP_PUSH, 29); emit(p, OP_SHR, 0); emit(p, OP_XOR, 0);
	emit(p, OP_STORE, 1);
	FOR_END(p, 0, 0);
	emit(p, OP_LOAD, 1); emit(p, OP_HALT, 0);
}

static void prog_collatz(struct prog *p, int n)
{
	emit(p, OP_PUSH, 0); emit(p, OP_STORE, 2);
	FOR_BEGIN(p, 0, 1, n, 0);
	emit(p, OP_LOAD, 0); emit(p, OP_STORE, 1);
	label(p, 4);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 1); emit(p, OP_EQ, 0); emitj(p, OP_JNZ, 5);
	emit(p, OP_LOAD, 2); emit(p, OP_PUSH, 1); emit(p, OP_ADD, 0); emit(p, OP_STORE, 2);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 2); emit(p, OP_MOD, 0); emitj(p, OP_JZ, 6);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 3); emit(p, OP_MUL, 0); emit(p, OP_PUSH, 1); emit(p, OP_ADD, 0);
	emit(p, OP_STORE, 1); emitj(p, OP_JMP, 4);
	label(p, 6);
	emit(p, OP_LOAD, 1); emit(p, OP_PUSH, 2); emit(p, OP_DIV, 0); emit(p, OP_STORE, 1); emitj(p, OP_JMP, 4);
	label(p, 5);
	FOR_END(p, 0, 0);
	emit(p, OP_LOAD, 2); emit(p, OP_HALT, 0);
}

static void prog_matrix(struct prog *p, int n)
{
	/* c[i][j] += a[i][k] * b[k][j] over heap-resident n x n matrices (n <= 64). */
	FOR_BEGIN(p, 0, 0, n * n, 0);
	emit(p, OP_LOAD, 0); emit(p, OP_PUSH, 7); emit(p, OP_MOD, 0); emit(p, OP_LOAD, 0); emit(p, OP_ASTORE, 0);
	emit(p, OP_LOAD, 0); emit(p, OP_PUSH, 5); emit(p, OP_MOD, 0); emit(p, OP_LOAD, 0); emit(p, OP_PUSH, 4096);
	emit(p, OP_ADD, 0); emit(p, OP_ASTORE, 0);
	FOR_END(p, 0, 0);
	emit(p, OP_PUSH, 0); emit(p, OP_STORE, 5);
	FOR_BEGIN(p, 0, 0, n, 2);
	FOR_BEGIN(p, 1, 0, n, 4);
	emit(p, OP_PUSH, 0); emit(p, OP_STORE, 3);
	FOR_BEGIN(p, 2, 0, n, 6);
	emit(p, OP_LOAD, 0); emit(p, OP_PUSH, n); emit(p, OP_MUL, 0); emit(p, OP_LOAD, 2); emit(p, OP_ADD, 0);
	emit(p, OP_ALOAD, 0);
	emit(p, OP_LOAD, 2); emit(p, OP_PUSH, n); emit(p, OP_MUL, 0); emit(p, OP_LOAD, 1); emit(p, OP_ADD, 0);
	emit(p, OP_PUSH, 4096); emit(p, OP_ADD, 0); emit(p, OP_ALOAD, 0);
	emit(p, OP_MUL, 0); emit(p, OP_LOAD, 3); emit(p, OP_ADD, 0); emit(p, OP_STORE, 3);
	FOR_END(p, 2, 6);
	emit(p, OP_LOAD, 5); emit(p, OP_LOAD, 3); emit(p, OP_XOR, 0); emit(p, OP_STORE, 5);
	FOR_END(p, 1, 4);
	FOR_END(p, 0, 2);
	emit(p, OP_LOAD, 5); emit(p, OP_HALT, 0);
}

struct bench {
	const char *name;
	void (*build)(struct prog *, int);
	int size;
};

static const struct bench benches[] = {
	{ "sieve", prog_sieve, 40000 },
	{ "fib", prog_fib, 24 },
	{ "sort", prog_sort, 1500 },
	{ "hash", prog_hash, 300000 },
	{ "collatz", prog_collatz, 6000 },
	{ "matrix", prog_matrix, 48 },
};

static int64_t run_bench(struct vm *vm, const char *name, int percent)
{
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
		if (strcmp(benches[i].name, name))
			continue;
		struct prog *p = calloc(1, sizeof(*p));
		if (!p)
			vm_fail("out of memory", 0, 0);
		benches[i].build(p, benches[i].size * percent / 100);
		link_prog(p);
		int64_t r = run(vm, p->code, p->len);
		free(p);
		return r;
	}
	fprintf(stderr, "minivm: unknown program '%s'\n", name);
	exit(64);
}

int main(int argc, char **argv)
{
	/*
	 * "train" and "eval" run every program, on different sizes and in different proportions:
	 * the same code paths, different inputs, as a real training run would be.
	 */
	static const struct { const char *name; int train, eval; } mix[] = {
		{ "sieve", 150, 60 }, { "fib", 80, 120 }, { "sort", 40, 110 },
		{ "hash", 130, 50 }, { "collatz", 70, 140 }, { "matrix", 100, 80 },
	};
	const char *what = argc > 1 ? argv[1] : "eval";
	int n = argc > 2 ? atoi(argv[2]) : 1;
	struct vm *vm = calloc(1, sizeof(*vm));
	int64_t sum = 0;

	if (!vm)
		return 2;
	for (int r = 0; r < n; r++) {
		for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
			if (!strcmp(what, "train"))
				sum ^= run_bench(vm, mix[i].name, mix[i].train) + r;
			else if (!strcmp(what, "eval"))
				sum ^= run_bench(vm, mix[i].name, mix[i].eval) + r;
			else if (!strcmp(what, mix[i].name))
				sum ^= run_bench(vm, what, 100) + r;
		}
	}
	printf("%lld (%llu steps)\n", (long long)sum, (unsigned long long)vm->steps);
	free(vm);
	return 0;
}
