#!/usr/bin/env bash
# End-to-end test with real VMs: each VM is a network namespace with its own
# address on a veth pair to this host and a route to 169.254.169.254 through
# it, where `forewarn serve --metadata-addr 169.254.169.254:80
# --assign-address` answers them, as a hypervisor host serves its VMs.
#
# The fleet: availability set "web" of three VMs over two update domains
# (web-0 and web-2 in update domain 0, web-1 in 1), availability set "other"
# with other-0, and a fifth namespace, "stranger", whose address belongs to no
# VM. It checks, from inside the namespaces: the seed pages' curl lines word
# for word, that each VM is known by its address, `forewarn agent`, that an
# approval by one VM starts the event for all its Resources, that the other
# scope sees nothing and cannot approve, and that the admin API cannot be
# reached. It prints PASS or FAIL per check.
#
# Usage: scripts/netns-e2e.sh [path/to/forewarn]     (as root; builds forewarn if no path)
# Exit status: 0 every check passed, 1 a check failed, 77 it cannot run here
# (not root, no network namespaces, port 80 taken): e2e/netns_test.go skips
# on 77 unless FOREWARN_REQUIRE_NETNS=1.
# FOREWARN_NETNS_E2E_FAIL=1 makes one check fail on purpose, to see that the
# namespaces, veths and addresses are removed on failure too.
#
# It needs port 80 of 169.254.169.254 to itself: do not run it at the same
# time as scripts/seed-examples.sh (which serves there too as root). Two runs
# of this script take turns through a lock.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
prefix=fw-e2e-            # namespaces: fw-e2e-PID-N; host veths: fwePIDhN
tmp=${TMPDIR:-/tmp}       # work directories: $tmp/fw-netns-e2e-PID.XXXXXX
meta=169.254.169.254
seed_url="http://$meta/metadata/scheduledevents?api-version=2017-03-01"
vms=(web-0 web-1 web-2 other-0 stranger)
stranger=4
ns_name=() host_addr=() vm_addr=()

cannot() {
	echo "netns-e2e: cannot run here: $*" >&2
	exit 77
}

die() {
	echo "FAIL: $*"
	[ -s "${work:-/nonexistent}/serve.log" ] && sed 's/^/  serve: /' "$work/serve.log" | tail -20
	exit 1
}

failures=0
started=${EPOCHREALTIME//[.,]/}

# elapsed prints the seconds since the start, to a tenth.
elapsed() {
	local ds=$(((${EPOCHREALTIME//[.,]/} - started) / 100000))
	echo "$((ds / 10)).$((ds % 10))"
}

# check NAME COMMAND...: runs COMMAND and prints PASS or FAIL for NAME.
check() {
	local name=$1
	shift
	if "$@"; then
		echo "PASS: $name ($(elapsed)s)"
	else
		echo "FAIL: $name ($(elapsed)s)"
		failures=$((failures + 1))
	fi
}

# json_ok JSON EXPR: whether the Python expression EXPR holds of d, the
# parsed JSON; says what it got when it does not.
json_ok() {
	"$py" -c 'import json, sys
d = json.loads(sys.argv[1])
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null && return 0
	echo "  got: $1" >&2
	return 1
}

# preflight refuses to start where the test cannot run, and takes the lock.
preflight() {
	[ "$(id -u)" = 0 ] || cannot "needs root: it creates network namespaces and veth pairs, and serves on $meta:80 (run it with sudo)"
	local tool
	for tool in ip curl python3 ss flock; do
		command -v "$tool" >/dev/null || cannot "needs $tool"
	done
	ip netns list >/dev/null 2>&1 || cannot "'ip netns' does not work here"
	# The interpreter itself: a version manager's shim can take most of a
	# second to start on a busy machine, and the checks start it often.
	py=$(python3 -c 'import sys; print(sys.executable)') || cannot "python3 does not run"
	local lockdir=/run/lock
	[ -d "$lockdir" ] || lockdir=/tmp
	exec 9>"$lockdir/forewarn-netns-e2e.lock"
	if ! flock -n 9; then
		echo "waiting for another run of netns-e2e.sh to end"
		flock -w 120 9 || cannot "another run of netns-e2e.sh held its lock for 2 minutes"
	fi
	started=${EPOCHREALTIME//[.,]/}
	# serve and the agents get SIGTERM if this script is killed outright,
	# so that serve removes 169.254.169.254 and nothing is left listening.
	orphan_guard=()
	setpriv --pdeathsig TERM true 2>/dev/null && orphan_guard=(setpriv --pdeathsig TERM)
	# A listener on 169.254.169.254:80 or on port 80 of every address keeps
	# serve from listening there.
	local busy
	busy=$(ss -Hltn 'sport = :80' | awk '$4 ~ /^(169\.254\.169\.254|0\.0\.0\.0|\*|\[::\])%?[^:]*:80$/')
	[ -z "$busy" ] || cannot "something already listens on $meta:80 (scripts/seed-examples.sh?): $busy"
}

# clean_leftovers removes the namespaces, host veths and work directories
# of earlier runs of this script whose process is gone (a run killed with
# SIGKILL).
clean_leftovers() {
	local ns pid link dir
	for ns in $(ip netns list | awk '{print $1}' | grep "^${prefix}[0-9]*-[0-9]*$"); do
		pid=${ns#"$prefix"}
		pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null && continue
		echo "removing namespace $ns left by run $pid"
		remove_namespace "$ns"
	done
	for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^fwe[0-9]*h[0-9]*$'); do
		pid=${link#fwe}
		pid=${pid%h*}
		kill -0 "$pid" 2>/dev/null || ip link del "$link" 2>/dev/null
	done
	for dir in "$tmp"/fw-netns-e2e-*.*; do
		[ -d "$dir" ] || continue
		pid=${dir#"$tmp"/fw-netns-e2e-}
		pid=${pid%%.*}
		kill -0 "$pid" 2>/dev/null || rm -rf "$dir"
	done
}

# remove_namespace stops what runs in namespace $1 (SIGTERM, then SIGKILL
# after 5 s), then deletes it, and with it its end of the veth pair, and so
# the pair.
remove_namespace() {
	local pids _
	mapfile -t pids < <(ip netns pids "$1" 2>/dev/null)
	[ "${#pids[@]}" -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	for _ in $(seq 50); do
		mapfile -t pids < <(ip netns pids "$1" 2>/dev/null)
		[ "${#pids[@]}" -gt 0 ] || break
		sleep 0.1
	done
	[ "${#pids[@]}" -eq 0 ] || kill -9 "${pids[@]}" 2>/dev/null
	ip netns del "$1" 2>/dev/null
}

# pick_block prints B such that 10.213.B.0/24 overlaps no address or route
# of this host (the default route aside), starting from one that depends on
# the process id.
pick_block() {
	"$py" - "$$" <<'PY'
import ipaddress, subprocess, sys
types = {"local", "broadcast", "unicast", "multicast", "unreachable", "blackhole", "prohibit", "throw", "anycast", "nat"}
taken = []
for line in subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, check=True).stdout.splitlines():
    taken.append(ipaddress.ip_interface(line.split()[3]).network)
for line in subprocess.run(["ip", "-4", "route", "show", "table", "all"], capture_output=True, text=True, check=True).stdout.splitlines():
    words = line.split()
    dst = words[1] if words[0] in types else words[0]
    if dst != "default":
        taken.append(ipaddress.ip_network(dst, strict=False))
start = int(sys.argv[1]) % 256
for i in range(256):
    b = (start + i) % 256
    block = ipaddress.ip_network(f"10.213.{b}.0/24")
    if not any(block.overlaps(t) for t in taken):
        print(b)
        sys.exit(0)
sys.exit("no free 10.213.x.0/24")
PY
}

# make_vm creates namespace i with lo up, eth0 at vm_addr[i]/30 on a veth
# whose host end has host_addr[i]/30, and a route to the metadata address
# through the host; nothing else is routed.
make_vm() {
	local i=$1 ns=${ns_name[$1]} hv=fwe$$h$1 pv=fwe$$v$1
	ip netns add "$ns" || return 1
	ip link add "$hv" type veth peer name "$pv" netns "$ns" &&
		ip -n "$ns" link set "$pv" name eth0 &&
		ip addr add "${host_addr[$i]}/30" dev "$hv" &&
		ip link set "$hv" up &&
		ip -n "$ns" link set lo up &&
		ip -n "$ns" addr add "${vm_addr[$i]}/30" dev eth0 &&
		ip -n "$ns" link set eth0 up &&
		ip -n "$ns" route add "$meta/32" via "${host_addr[$i]}"
}

# teardown stops the agents and serve, removes the namespaces (and so the
# veths and their addresses), and the metadata address if serve added it
# and could not remove it. It runs at exit, whatever the outcome.
teardown() {
	local i
	for i in "${!ns_name[@]}"; do remove_namespace "${ns_name[$i]}"; done
	if [ -n "${serve_pid:-}" ]; then
		kill "$serve_pid" 2>/dev/null
		wait "$serve_pid" 2>/dev/null
	fi
	if [ "${meta_was_there:-yes}" = no ] && ip -4 addr show dev lo | grep -q " $meta/32 "; then
		ip addr del "$meta/32" dev lo
	fi
	[ -n "${work:-}" ] && rm -rf "$work"
}

# invm runs a command inside VM i's namespace.
invm() {
	local i=$1
	shift
	ip netns exec "${ns_name[$i]}" "$@"
}

# seed_get prints VM i's document, fetched with the seed pages' curl line,
# word for word.
seed_get() {
	invm "$1" timeout 10 curl -H Metadata:true "$seed_url" 2>>"$work/curl.err"
}

# admin runs a forewarn admin command against this run's server.
admin() {
	FOREWARN_SERVER=http://127.0.0.1:$admin_port FOREWARN_TOKEN=$token "$bin" "$@"
}

# start_serve starts forewarn serve on 169.254.169.254:80 with the fleet,
# and waits until its admin API answers.
start_serve() {
	cat >"$work/fleet.yaml" <<YAML
scopes:
  - name: web
    kind: availability-set
    updateDomains: 2
    vms:
      - {name: web-0, updateDomain: 0, addresses: [${vm_addr[0]}]}
      - {name: web-1, updateDomain: 1, addresses: [${vm_addr[1]}]}
      - {name: web-2, updateDomain: 0, addresses: [${vm_addr[2]}]}
  - name: other
    kind: availability-set
    vms:
      - {name: other-0, addresses: [${vm_addr[3]}]}
YAML
	cat >"$work/actuate.sh" <<SH
#!/bin/sh
# forewarn's exec actuator runs this once per VM of a started event: it
# records the VM and holds the event Started until the test releases it.
echo "\$FOREWARN_VM \$FOREWARN_EVENT_ID" >>$work/actuated
while [ ! -e $work/release ]; do sleep 0.05; done
SH
	chmod +x "$work/actuate.sh"
	touch "$work/actuated"
	admin_port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"${orphan_guard[@]}" "$bin" serve --dev --data-dir "$work/data" --metadata-addr "$meta:80" --assign-address \
		--admin-addr "127.0.0.1:$admin_port" --rate-limit 0 --fleet "$work/fleet.yaml" \
		--actuator exec --exec-command "$work/actuate.sh" \
		2>"$work/serve.log" 9>&- &
	serve_pid=$!
	local _
	for _ in $(seq 300); do
		curl -sf --max-time 1 "http://127.0.0.1:$admin_port/healthz" >/dev/null && break
		kill -0 "$serve_pid" 2>/dev/null || die "forewarn serve exited at start"
		sleep 0.1
	done
	token=$(cat "$work/data/admin.token" 2>/dev/null) || die "forewarn serve did not start within 30 s"
}

# start_agent runs forewarn agent inside VM i, with hooks on every
# transition of a Reboot that append to $work/hooks-NAME, and no approval.
start_agent() {
	local i=$1 name=${vms[$1]} scope_events=${2:-false}
	local hook="echo \"\$FOREWARN_HOOK \$FOREWARN_VM \$FOREWARN_EVENT_ID \$FOREWARN_EVENT_STATUS\" >>$work/hooks-$name"
	cat >"$work/agent-$name.yaml" <<YAML
state_file: $work/agent-$name.state
scope_events: $scope_events
hooks:
  Reboot:
    on_scheduled: {command: '$hook', timeout: 10s}
    on_started: {command: '$hook', timeout: 10s}
    on_completed: {command: '$hook', timeout: 10s}
    on_cancelled: {command: '$hook', timeout: 10s}
YAML
	touch "$work/hooks-$name"
	ip netns exec "${ns_name[$i]}" "${orphan_guard[@]}" "$bin" agent --config "$work/agent-$name.yaml" 2>"$work/agent-$name.log" 9>&- &
}

# wait_for SECONDS COMMAND...: whether COMMAND succeeds within SECONDS.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# --- checks --------------------------------------------------------------

# empty_document: VM i answers the seed GET with no events.
empty_document() {
	local doc
	doc=$(seed_get "$1") && json_ok "$doc" 'd["Events"] == [] and d["DocumentIncarnation"] >= 1'
}

# known_by_address: VM i's compute metadata names it, with its update domain.
known_by_address() {
	local i=$1 doc ud=${2:-}
	doc=$(invm "$i" curl -s --max-time 5 -H Metadata:true "http://$meta/metadata/instance/compute?api-version=2021-02-01") &&
		json_ok "$doc" "d['name'] == '${vms[$i]}' and d['platformUpdateDomain'] == '$ud'"
}

# refused_stranger: an address of no VM gets 403 naming it.
refused_stranger() {
	local out
	out=$(invm "$stranger" curl -s --max-time 5 -w '\n%{http_code}' -H Metadata:true "$seed_url")
	[ "${out##*$'\n'}" = 403 ] && json_ok "${out%$'\n'*}" "'${vm_addr[$stranger]}' in d['error']"
}

# admin_unreachable: from VM i, no connection reaches the admin port: not
# on the host's end of its veth, nor on 169.254.169.254 (on the host's
# loopback), nor on 127.0.0.1 (its own loopback). Each is refused or times
# out.
admin_unreachable() {
	local host code
	for host in "${host_addr[$1]}" "$meta" 127.0.0.1; do
		invm "$1" curl -s -o /dev/null --max-time 2 "http://$host:$admin_port/healthz"
		code=$?
		[ "$code" = 7 ] || [ "$code" = 28 ] || { echo "  $host:$admin_port: curl exit status $code" >&2; return 1; }
	done
}

# sees_event: VM i's seed document holds event $2 alone, with $3 as
# status, web-0 and web-2 as Resources, and a NotBefore until it starts.
sees_event() {
	local doc started=False
	[ "$3" = Started ] && started=True
	doc=$(seed_get "$1") &&
		json_ok "$doc" "[(e['EventId'], e['EventStatus'], sorted(e['Resources']), e['NotBefore'] == '') for e in d['Events']] == [('$2', '$3', ['web-0', 'web-2'], $started)]"
}

# one_scope_document: web-0, web-1 and web-2 get the same document, with an
# incarnation past 1.
one_scope_document() {
	local d0 d1 d2
	d0=$(seed_get 0) && d1=$(seed_get 1) && d2=$(seed_get 2) || return 1
	if [ "$d0" != "$d1" ] || [ "$d1" != "$d2" ]; then
		echo "  got: $d0 / $d1 / $d2" >&2
		return 1
	fi
	json_ok "$d0" 'd["DocumentIncarnation"] > 1'
}

# hook_ran NAME HOOK ID: the agent of VM NAME ran HOOK for event ID, as NAME.
hook_ran() {
	grep -q "^$2 $1 $3 " "$work/hooks-$1"
}

# approve VM i approves event $2 with the seed's POST; prints the status
# and body.
approve() {
	invm "$1" curl -s --max-time 5 -w '\n%{http_code}' -H Metadata:true -X POST \
		-d '{"DocumentIncarnation":"5", "StartRequests": [{"EventId": "'"$2"'"}]}' "$seed_url"
}

# refused_approval: other-0's approval of event $1 is a 400 naming it, and
# the event is still Scheduled.
refused_approval() {
	local out
	out=$(approve 3 "$1")
	[ "${out##*$'\n'}" = 400 ] && json_ok "${out%$'\n'*}" "'$1' in d['error']" &&
		json_ok "$(admin maintenance list --scope web -o json)" "[e['status'] for e in d] == ['Scheduled']"
}

# approved_by_web2: web-2's approval of event $1 answers 200 {}.
approved_by_web2() {
	local out
	out=$(approve 2 "$1")
	[ "$out" = $'{}\n200' ] || { echo "  got: $out" >&2; return 1; }
}

# actuated_both: the actuator runs for web-0 and web-2, not web-1, and the
# event is Started as approved by web-2.
actuated_both() {
	[ "$(sort "$work/actuated")" = "web-0 $1"$'\n'"web-2 $1" ] &&
		json_ok "$(admin maintenance list --scope web -o json)" "[(e['id'], e['status'], e['approvedBy']) for e in d] == [('$1', 'Started', 'web-2')]"
}

# next_update_domain: once event $1 is over, web-1 sees the campaign's next
# event, on it alone.
next_update_domain() {
	local doc
	doc=$(seed_get 1) &&
		json_ok "$doc" "[(e['EventStatus'], e['Resources']) for e in d['Events'] if e['EventId'] != '$1'] == [('Scheduled', ['web-1'])] and all(e['EventId'] != '$1' for e in d['Events'])"
}

# untouched_other: other-0's document is still the empty one of incarnation 1.
untouched_other() {
	[ "$(seed_get 3)" = '{"DocumentIncarnation":1,"Events":[]}' ] || { echo "  got: $(seed_get 3)" >&2; return 1; }
}

# --- main ----------------------------------------------------------------

# setup builds forewarn if needed, creates the VMs and starts serve and two
# agents: web-0's, and other-0's with scope_events.
setup() {
	work=$(mktemp -d "$tmp/fw-netns-e2e-$$.XXXXXX")
	chmod 755 "$work"
	bin=${1:-}
	if [ -z "$bin" ]; then
		bin=$work/forewarn
		go build -o "$bin" ./cmd/forewarn || die "go build"
	fi
	bin=$(realpath "$bin")
	block=$(pick_block) || die "no free address block under 10.213.0.0/16"
	local i
	for i in "${!vms[@]}"; do
		ns_name[i]=$prefix$$-$i
		host_addr[i]=10.213.$block.$((4 * i + 1))
		vm_addr[i]=10.213.$block.$((4 * i + 2))
	done
	make_vm 0 || cannot "could not create network namespace ${ns_name[0]} with a veth pair"
	for i in 1 2 3 "$stranger"; do make_vm "$i" || die "could not create network namespace ${ns_name[$i]}"; done
	echo "VMs: $(for i in "${!vms[@]}"; do printf '%s=%s ' "${vms[$i]}" "${vm_addr[$i]}"; done)"
	ip -4 addr show dev lo | grep -q " $meta/32 " && meta_was_there=yes || meta_was_there=no
	start_serve
	start_agent 0
	start_agent 3 true
}

# check_identity: every VM is answered, as itself, by its address alone.
check_identity() {
	local i want_ud=(0 1 0 0)
	[ "${FOREWARN_NETNS_E2E_FAIL:-}" = 1 ] && want_ud[0]=1
	for i in 0 1 2 3; do
		check "${vms[$i]}: the seed's curl GET answers an empty document" empty_document "$i"
	done
	for i in 0 1 2 3; do
		check "${vms[$i]}: known by its address (compute name ${vms[$i]}, update domain ${want_ud[$i]})" known_by_address "$i" "${want_ud[$i]}"
	done
	check "stranger: an address of no VM gets 403 naming it" refused_stranger
}

# check_admin_unreachable: the admin API answers on the host, and no VM
# reaches it.
check_admin_unreachable() {
	local i
	check "admin API answers on the host's loopback" curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$admin_port/healthz"
	for i in "${!vms[@]}"; do
		check "${vms[$i]}: admin API unreachable at ${host_addr[$i]}, $meta and 127.0.0.1, port $admin_port" admin_unreachable "$i"
	done
}

# check_event follows a campaign's event on update domain 0 of scope web
# (web-0 and web-2): seen by the scope and not by other-0, refused to
# other-0, approved by web-2 for both, then over, and the next update domain.
check_event() {
	local campaign id i
	campaign=$(admin maintenance start --type Reboot --scope web --notice 1h -o json) || die "maintenance start: $campaign"
	id=$("$py" -c 'import json, sys; print(json.loads(sys.argv[1])["scopes"][0]["event"])' "$campaign") || die "no event in $campaign"
	echo "campaign event on update domain 0: $id"
	for i in 0 1 2; do
		check "${vms[$i]}: sees the Scheduled Reboot of web-0 and web-2" sees_event "$i" "$id" Scheduled
	done
	check "web-0, web-1 and web-2 get one document, their scope's" one_scope_document
	check "other-0: sees no event (incarnation still 1)" untouched_other
	check "web-0's agent ran on_scheduled for the event, as web-0" wait_for 15 hook_ran web-0 on_scheduled "$id"
	check "other-0: its approval of the event is refused (400 naming the EventId), nothing starts" refused_approval "$id"
	check "web-2: the seed's curl POST approves the event (200 {})" approved_by_web2 "$id"
	check "the event started for web-0 and web-2 (the actuator runs on both), approved by web-2" wait_for 15 actuated_both "$id"
	for i in 0 1 2; do
		check "${vms[$i]}: sees the event Started (NotBefore \"\")" sees_event "$i" "$id" Started
	done
	check "web-0's agent ran on_started for the event web-2 approved" wait_for 15 hook_ran web-0 on_started "$id"
	touch "$work/release"
	check "web-0's agent ran on_completed once the reboot was over" wait_for 15 hook_ran web-0 on_completed "$id"
	check "web-1: sees the campaign's next event, on update domain 1 alone" wait_for 15 next_update_domain "$id"
	check "other-0: still sees no event" untouched_other
	check "other-0's agent (scope_events) ran no hook" test ! -s "$work/hooks-other-0"
	check "other-0's agent knew itself as other-0" grep -q 'msg="agent started".* vm=other-0 ' "$work/agent-other-0.log"
}

# check_teardown removes the VMs, stops serve, and checks that nothing of
# this run is left; the kernel dismantles a deleted namespace, and its
# veths, in the background.
check_teardown() {
	local i status
	for i in "${!ns_name[@]}"; do remove_namespace "${ns_name[$i]}"; done
	kill "$serve_pid"
	wait "$serve_pid"
	status=$?
	serve_pid=
	check "forewarn serve stopped cleanly on SIGTERM" test "$status" = 0
	if [ "$meta_was_there" = no ]; then
		check "serve removed $meta from lo at exit" eval "! ip -4 addr show dev lo | grep -q ' $meta/32 '"
	fi
	check "no namespace of this run is left" eval "! ip netns list | grep -q '^$prefix$$-'"
	check "no veth of this run is left" wait_for 5 eval "! ip -o link show | grep -q ': fwe$$[hv]'"
	check "no address of 10.213.$block.0/24 is left" wait_for 5 eval "! ip -4 -o addr | grep -q ' 10\.213\.$block\.'"
}

main() {
	preflight
	clean_leftovers
	trap teardown EXIT
	trap 'exit 1' INT TERM HUP
	setup "$@"
	check_identity
	check_admin_unreachable
	check_event
	check_teardown
	if [ "$failures" -gt 0 ]; then
		echo "FAIL: $failures check(s) failed"
		[ -s "$work/serve.log" ] && sed 's/^/  serve: /' "$work/serve.log" | tail -30
		exit 1
	fi
	echo "PASS: every check passed ($(elapsed)s)"
}

main "$@"
