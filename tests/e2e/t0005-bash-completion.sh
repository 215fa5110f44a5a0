#!/usr/bin/env bash
# Bash completion, through bash-completion's own machinery: make install puts completion/pgo.bash
# where bash-completion looks; bash-completion's loader (__load_completion) finds it for pgo and
# the dashed forms; the completion function, called as bash calls it (COMP_WORDS, COMP_CWORD,
# COMP_LINE, COMP_POINT), offers the words each command's --help names: commands, gate's
# subcommands, every option (tests/tools/help-options.sh), and the values of --to, --view and
# --call-graph.
. "$(dirname "$0")/lib.sh"

bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then test_set_prereq BASHCOMP; else test_set_prereq BASHCOMP "bash-completion not installed"; fi

# complete LINE: the words bash completion offers at the end of LINE, sorted, one a line
complete_line() {
	BASH_COMPLETION_USER_DIR=${compdir:-$TRASH/inst/usr/share/bash-completion} PATH="$PGO_BIN:$PATH" \
	bash --norc --noprofile -c '
		. "$1" || exit 3
		line=$2
		# words as bash splits them: at blanks, and "=" is a word of its own (COMP_WORDBREAKS)
		read -r -a COMP_WORDS <<<"${line//=/ = }"
		case "$line" in *" ") COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$line COMP_POINT=${#line}
		__load_completion "${COMP_WORDS[0]}" || { echo "no completion for ${COMP_WORDS[0]}" >&2; exit 4; }
		spec=$(complete -p "${COMP_WORDS[0]}") || exit 5
		fn=$(echo "$spec" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		[ -n "$fn" ] || exit 6
		prev=""; [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "$prev" || exit 7
		printf "%s\n" "${COMPREPLY[@]}" | sort -u | sed "/^\$/d"
	' complete "$bc" "$1"
}

# the alternatives of OPT in a --help usage text: "--to a|b|c" -> a b c (one a line, sorted)
help_values() {
	grep -oE -- "$1 [][a-zA-Z|,-]+" | head -1 | sed -e "s/^$1 //" -e 's/\[[^]]*\]//g' -e 's/[][]//g' | tr '|' '\n' | sort -u
}

test_expect_success BASHCOMP 'make install puts the completion where bash-completion looks' '
	make -s -C "$PGO_ROOT" OUTPUT="$PGO_BUILD" DESTDIR="$TRASH/inst" PREFIX=/usr install >/dev/null &&
	d=$(pkg-config --variable=completionsdir bash-completion) &&
	test -s "inst$d/pgo" &&
	for a in pgo-collect pgo-convert pgo-gate; do test "$(readlink "inst$d/$a")" = pgo || exit 1; done
'

test_expect_success BASHCOMP 'pgo convert --to <TAB> offers the formats of --help' '
	pgo convert --help | help_values --to >expect &&
	test "$(wc -l <expect)" -ge 6 &&
	complete_line "pgo convert --to " >actual &&
	test_cmp expect actual &&
	complete_line "pgo convert -i x.data --to ll" >actual &&
	test "$(cat actual)" = llvm &&
	complete_line "pgo-convert --to=sv" >actual &&
	test "$(cat actual)" = svg &&
	complete_line "pgo convert --to=" >actual &&
	test_cmp expect actual
'

test_expect_success BASHCOMP 'pgo gate <TAB> offers its subcommands' '
	pgo gate --help | "$PGO_ROOT/tests/tools/help-options.sh" commands >expect &&
	test "$(tr "\n" " " <expect)" = "check compare record " &&
	complete_line "pgo gate " >actual &&
	test_cmp expect actual &&
	complete_line "pgo-gate c" >actual &&
	printf "check\ncompare\n" >expect && test_cmp expect actual
'

test_expect_success BASHCOMP 'pgo <TAB> offers the commands' '
	pgo --help | "$PGO_ROOT/tests/tools/help-options.sh" commands >expect &&
	complete_line "pgo " >actual &&
	test_cmp expect actual
'

test_expect_success BASHCOMP 'every option of every --help completes, and no other' '
	for c in collect convert gate; do
		{ pgo $c --help | "$PGO_ROOT/tests/tools/help-options.sh" options && printf -- "-h\n--help\n"; } |
			sort -u >expect &&
		if [ $c = gate ]; then line="pgo gate compare -"; else line="pgo $c -"; fi &&
		complete_line "$line" >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success BASHCOMP '--view and --call-graph values are those of --help' '
	pgo convert --help | help_values --view >expect &&
	complete_line "pgo convert --to svg --view " >actual && test_cmp expect actual &&
	pgo gate --help | sed -n "s/^ *--view V *//p" | grep -oE "[a-z]+" | grep -vxE "default|or" | sort -u >expect &&
	complete_line "pgo gate check --view " >actual && test_cmp expect actual &&
	pgo collect --help | help_values --call-graph >expect &&
	test "$(wc -l <expect)" = 5 &&
	complete_line "pgo collect --call-graph " >actual && test_cmp expect actual &&
	pgo convert --help | awk "/^  --offline-nested/ { f = 1; print; next } f && /^  -/ { exit } f" | tr -s "\n " "  " |
		grep -oE "[a-z]+ \((the default|the option alone)\)|or [a-z]+ *\$" |
		sed -e "s/^or //" -e "s/ .*//" | sort -u >expect &&
	test "$(wc -l <expect)" = 3 &&
	complete_line "pgo convert --offline-nested=" >actual && test_cmp expect actual
'

test_expect_success BASHCOMP 'file names after -i, -o, -b; commands after --' '
	mkdir -p sub && : >pgo.data && : >perf.data && : >bench &&
	complete_line "pgo convert --to autofdo -i pg" >actual &&
	test "$(cat actual)" = pgo.data &&
	complete_line "pgo convert -b be" >actual && test "$(cat actual)" = bench &&
	complete_line "pgo collect -o su" >actual && test "$(cat actual)" = sub &&
	complete_line "pgo gate check -r 5 -- bas" >actual && grep -qx bash actual
'

test_expect_success BASHCOMP 'self-check: a completion that lacks an option fails the comparison' '
	mkdir -p cut/completions &&
	sed "s/ --off-cpu-min / /" "inst$(pkg-config --variable=completionsdir bash-completion)/pgo" \
		>cut/completions/pgo &&
	{ pgo collect --help | "$PGO_ROOT/tests/tools/help-options.sh" options && printf -- "-h\n--help\n"; } |
		sort -u >expect &&
	compdir=$TRASH/cut complete_line "pgo collect -" >actual &&
	! test_cmp expect actual >diff &&
	grep -E "^[-+]" diff | grep -vE "^(---|\+\+\+) " >changed &&
	test "$(cat changed)" = "---off-cpu-min"
'
test_done
