#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunwind through the function-graph tracer's trampoline: trace
# kuw_chain_f2 of graph_payload.ko (its return address becomes
# return_to_handler), then have the payload walk the chain with kunwind
# alone; the payload refuses the write unless the real callers show, in
# order, with no return_to_handler, to a reliable end (kunit/graph_payload.c).
# The trace buffer must show f2 was traced.  Skipped on kernels without
# the function-graph tracer.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 1
TR=/sys/kernel/tracing
P=/sys/module/graph_payload/parameters/walk

[ -f $TR/available_tracers ] || mount -t tracefs nodev $TR 2>/dev/null
if [ ! -f $P ]; then
	skip "function graph" "graph_payload.ko not loaded"
	exit 0
fi
if ! grep -qw function_graph $TR/available_tracers 2>/dev/null; then
	skip "function graph" "no function_graph tracer in this kernel"
	exit 0
fi
echo kuw_chain_f2 >$TR/set_ftrace_filter &&
echo function_graph >$TR/current_tracer &&
echo >$TR/trace
if echo 1 >$P; then r=0; else r=1; fi
# before the tracer changes: that resets the buffer
cp $TR/trace /tmp/graph.trace
echo nop >$TR/current_tracer
echo >$TR/set_ftrace_filter
dmesg | grep 'graph_payload:' | tail -20 | diag
if ! grep -q kuw_chain_f2 /tmp/graph.trace; then
	diag </tmp/graph.trace
	notok "function graph: the tracer did not trace kuw_chain_f2"
elif [ $r = 0 ]; then
	ok "function graph: kunwind shows f3 f2 f1, not return_to_handler, reliable"
else
	notok "function graph: kunwind through return_to_handler"
fi
