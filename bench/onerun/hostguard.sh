# Sourced by bench/onerun/hold.sh, drop.sh, leakpath.sh and pace.sh: what they
# change on the host (a memory cgroup, zram0 or a swap file as swap, the
# processes they start) is
# written to a journal before it is changed, so that a run killed with
# kill -9 is undone by the next run of any of them, or by
#
#   sudo bench/onerun/recover.sh
#
# Only processes whose PID and start time (field 22 of /proc/PID/stat) are
# both in the journal are killed: a PID reused since is left alone.

guard_journal=${GUARD_JOURNAL:-/run/memplan-bench-onerun.journal}

# guard_start PID: the process's start time in clock ticks, or nothing
# when it is gone (or a zombie).
guard_start() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	# After the command name: state is field 3, start time field 22.
	set -- $s
	[ "$1" = Z ] || echo "${20}"
}

# guard_undo undoes what the journal records, newest first, and removes
# it; when something could not be undone it says what, keeps the journal
# for bench/onerun/recover.sh and fails.
guard_undo() {
	[ -f "$guard_journal" ] || return 0
	local left
	left=$(tac "$guard_journal" | while read -r line; do
		set -- $line
		kind=$1 a=${2:-} b=${3:-}
		case $kind in
		pid)
			if [ -n "$b" ] && [ "$(guard_start "$a")" = "$b" ]; then
				kill -CONT "$a" 2>/dev/null || true
				kill -KILL "$a" 2>/dev/null || true
			fi
			;;
		cgroup)
			# What is still in the cgroup descends from the command it was
			# made for (the script moves nothing else into it): a child
			# that outlived the command, such as yosys's ABC, is ended
			# too, or the cgroup could not be removed.
			if [ -d "$a" ]; then
				for _ in $(seq 50); do
					procs=$(cat "$a/cgroup.procs" 2>/dev/null) || break
					[ -n "$procs" ] || break
					for p in $procs; do
						kill -CONT "$p" 2>/dev/null || true
						kill -KILL "$p" 2>/dev/null || true
					done
					sleep 0.1
				done
				rmdir "$a" 2>/dev/null || echo "$a"
			fi
			;;
		swapfile)
			swapoff "$a" 2>/dev/null || true
			[ ! -e "$a" ] || rm -f "$a" 2>/dev/null || echo "$a"
			;;
		zram0)
			swapoff /dev/zram0 2>/dev/null || true
			[ ! -e /sys/block/zram0 ] || echo 1 >/sys/block/zram0/reset 2>/dev/null || echo "zram0"
			;;
		esac
	done)
	if [ -n "$left" ]; then
		echo "hostguard: could not undo" $left "; the journal $guard_journal is kept: run bench/onerun/recover.sh" >&2
		return 1
	fi
	rm -f "$guard_journal"
}

# guard_begin refuses while another guarded run is alive, and otherwise
# undoes what a killed one left.
guard_begin() {
	if [ -f "$guard_journal" ]; then
		local owner
		owner=$(awk '$1 == "owner" {print $2, $3}' "$guard_journal")
		set -- $owner
		if [ -n "${1:-}" ] && [ "$(guard_start "$1")" = "${2:-}" ]; then
			echo "another bench/onerun run (PID $1) holds $guard_journal" >&2
			exit 1
		fi
		echo "undoing what a killed run left (journal $guard_journal)" >&2
		guard_undo
	fi
	echo "owner $$ $(guard_start $$)" >"$guard_journal"
}

# guard_note KIND [ARG]: record a change before making it (for pid, just
# after starting the process).
guard_note() {
	case $1 in
	pid) echo "pid $2 $(guard_start "$2")" >>"$guard_journal" ;;
	*) echo "$*" >>"$guard_journal" ;;
	esac
}

# guard_sleep N sleeps N seconds in a way a trapped signal interrupts
# (bash runs a trap only once the foreground command has ended).
guard_sleep() {
	sleep "$1" &
	wait $! || true
}

# guard_job_begin is guard_begin for a script that runs one command at a
# time with its PID in $job: on exit, Ctrl-C or SIGTERM the command is
# resumed (it may be stopped) and ended, and the journal undone.
guard_job_begin() {
	guard_begin
	trap guard_job_end EXIT
	trap "exit 130" INT
	trap "exit 143" TERM
}

guard_job_end() {
	[ -n "${job:-}" ] && kill -CONT "$job" 2>/dev/null && kill "$job" 2>/dev/null
	sleep 0.3
	guard_undo
}
