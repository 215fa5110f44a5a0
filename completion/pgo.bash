# SPDX-License-Identifier: MIT
# bash completion for pgo and its dashed forms pgo-collect, pgo-convert, pgo-gate.
# Installed as pgo in bash-completion's completions directory, with links for the dashed
# forms (make install). The word lists follow each command's --help;
# tests/e2e/t0005-bash-completion.sh fails when they differ.

_pgo_opts_collect='-F --freq -e --event -g --call-graph -r --repeat -o --output
	-p --pid -a --all-processes --binary --cgroup --duration -z
	--compression-level --off-cpu --no-off-cpu --off-cpu-stacks --off-cpu-unwind
	--no-off-cpu-callers --off-cpu-min --off-cpu-sample -q --quiet -v --verbose -h --help'
_pgo_opts_convert='--to -i --input -b --binary -o --output --force --gcc --keep-discriminators
	--min-count --inline-max-size --offline-nested --gcno-dir --profile-prefix-path --dump --threads -q --quiet -v --verbose
	--view --run --title --subtitle --minwidth --header -h --help'
_pgo_opts_gate='--json --markdown --svg --q --abs-floor --rel-floor --program-floor
	--fail-on-program --view --allow-other-binary -b --own -r --runs -F --freq --off-cpu
	--no-off-cpu --off-cpu-stacks --off-cpu-unwind --no-off-cpu-callers --off-cpu-min
	--off-cpu-sample --ref --base --build --confirm --no-confirm --profile --confirm-profile
	-v --verbose -h --help'
_pgo_commands='collect convert gate'
_pgo_gate_commands='compare record check'

# Values of options: formats, views, modes
_pgo_values_to='autofdo llvm gcov pprof folded json svg'
_pgo_values_view='cpu offcpu wall'
_pgo_values_call_graph='auto fp dwarf-unwound dwarf none'
_pgo_values_event='auto cycles task-clock cpu-clock'
_pgo_values_off_cpu_stacks='all user kernel none'
_pgo_values_off_cpu_unwind='dwarf fp'
_pgo_values_offline_nested='inlined all none'
_pgo_values_gcc='12 13 14 15 16'

# _pgo_words WORDS CUR: COMPREPLY = the WORDS that start with CUR
_pgo_words()
{
	local IFS=$' \t\n'
	COMPREPLY=($(compgen -W "$1" -- "$2"))
}

# _pgo_files CUR [GLOB]: file names (and directories)
_pgo_files()
{
	local IFS=$'\n'
	if [ -n "${2:-}" ]; then
		COMPREPLY=($(compgen -f -X "!$2" -- "$1") $(compgen -d -- "$1"))
	else
		COMPREPLY=($(compgen -f -- "$1"))
	fi
	compopt -o filenames 2>/dev/null
}

# _pgo_value CMD PREV CUR: complete the value of option PREV; 1 if PREV takes no value
_pgo_value()
{
	local cmd=$1 prev=$2 cur=$3
	case "$cmd:$prev" in
	convert:--to) _pgo_words "$_pgo_values_to" "$cur" ;;
	*:--view) _pgo_words "$_pgo_values_view" "$cur" ;;
	collect:--call-graph) _pgo_words "$_pgo_values_call_graph" "$cur" ;;
	collect:-e | collect:--event) _pgo_words "$_pgo_values_event" "$cur" ;;
	*:--off-cpu-stacks) _pgo_words "$_pgo_values_off_cpu_stacks" "$cur" ;;
	*:--off-cpu-unwind) _pgo_words "$_pgo_values_off_cpu_unwind" "$cur" ;;
	convert:--gcc) _pgo_words "$_pgo_values_gcc" "$cur" ;;
	convert:--dump) _pgo_files "$cur" '*.afdo' ;;
	convert:--gcno-dir | convert:--profile-prefix-path)
		local IFS=$'\n'
		COMPREPLY=($(compgen -d -- "$cur"))
		compopt -o filenames 2>/dev/null ;;
	convert:-i | convert:--input | convert:-b | convert:--binary | *:-o | *:--output | \
	gate:--json | gate:--markdown | gate:--svg | gate:--profile | gate:--confirm-profile)
		_pgo_files "$cur" ;;
	collect:-p | collect:--pid)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(cd /proc && ls -d [0-9]* 2>/dev/null)" -- "$cur")) ;;
	collect:--binary) _pgo_files "$cur" ;;
	collect:--cgroup)
		local IFS=$'\n'
		COMPREPLY=($(compgen -d -- "$cur"))
		compopt -o filenames 2>/dev/null ;;
	collect:-F | collect:--freq | collect:--duration | collect:-r | collect:--repeat | collect:--compression-level | \
	*:--off-cpu-min | *:--off-cpu-sample | \
	convert:--min-count | convert:--inline-max-size | convert:--run | convert:--title | \
	convert:--subtitle | convert:--minwidth | \
	gate:--q | gate:--abs-floor | gate:--rel-floor | gate:--program-floor | gate:-b | gate:--own | \
	gate:-r | gate:--runs | gate:-F | gate:--freq | gate:--ref | gate:--base | gate:--build)
		COMPREPLY=() ;;
	*) return 1 ;;
	esac
	return 0
}

_pgo()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" sub="" i=1 w eq=""
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	# bash splits --opt=value at the '=' (COMP_WORDBREAKS): --opt, =, value
	if [ "$cur" = = ] && [[ "$prev" == -* ]]; then
		eq=1 cur=""
	elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 1 ]; then
		eq=1 prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	# the command: the dashed form's name, else the first word after pgo
	case "${COMP_WORDS[0]##*/}" in
	pgo-collect) cmd=collect ;;
	pgo-convert) cmd=convert ;;
	pgo-gate) cmd=gate ;;
	*)
		if [ "$COMP_CWORD" = 1 ]; then
			case "$cur" in
			-*) _pgo_words '--version --help' "$cur" ;;
			*) _pgo_words "$_pgo_commands" "$cur" ;;
			esac
			return 0
		fi
		cmd=${COMP_WORDS[1]}
		i=2
		;;
	esac

	# after "--" (collect, gate) comes the benchmark's command line: complete commands and files
	for ((; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ "$w" = -- ] && [ "$cmd" != convert ]; then
			COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			return 0
		fi
		if [ "$cmd" = gate ] && [ -z "$sub" ] && [[ "$w" != -* ]]; then
			sub=$w
		fi
	done

	# the value of --opt=VALUE, or of the option before
	if [ -n "$eq" ]; then
		if [ "$cmd:$prev" = convert:--offline-nested ]; then
			_pgo_words "$_pgo_values_offline_nested" "$cur"
		else
			_pgo_value "$cmd" "$prev" "$cur"
		fi
		return 0
	fi
	_pgo_value "$cmd" "$prev" "$cur" && return 0

	case "$cmd" in
	collect)
		case "$cur" in
		-*) _pgo_words "$_pgo_opts_collect" "$cur" ;;
		*) COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
		esac ;;
	convert)
		_pgo_words "$_pgo_opts_convert" "$cur" ;;
	gate)
		if [ -z "$sub" ]; then
			case "$cur" in
			-*) _pgo_words '-h --help' "$cur" ;;
			*) _pgo_words "$_pgo_gate_commands" "$cur" ;;
			esac
		else
			case "$cur" in
			-*) _pgo_words "$_pgo_opts_gate" "$cur" ;;
			*) [ "$sub" = compare ] && _pgo_files "$cur" ;;
			esac
		fi ;;
	esac
	return 0
}
complete -F _pgo pgo pgo-collect pgo-convert pgo-gate
