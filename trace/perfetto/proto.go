package perfetto

import "google.golang.org/protobuf/encoding/protowire"

// The field numbers of the Perfetto messages this package writes, read from
// Perfetto's protos at commit ec5d16b14b743ba6063d720956d6d6af6610fd72
// (2026-08-22, after v58.2) and written here by hand: the package needs a
// few dozen fields of a schema of thousands of messages, and a generated copy
// would tie the build to protoc and a vendored schema for no gain. Perfetto
// keeps field numbers stable (its traces of years ago still load), so these
// hold for older and newer trace processors alike.
//
// Each constant names the .proto file, message and field it encodes.
const (
	// protos/perfetto/trace/trace.proto
	fTracePacket protowire.Number = 1 // Trace.packet (repeated TracePacket)

	// protos/perfetto/trace/trace_packet.proto
	fPacketFtraceEvents     protowire.Number = 1   // TracePacket.ftrace_events (FtraceEventBundle)
	fPacketProcessTree      protowire.Number = 2   // TracePacket.process_tree (ProcessTree)
	fPacketTimestamp        protowire.Number = 8   // TracePacket.timestamp (uint64, ns)
	fPacketTrustedSeqID     protowire.Number = 10  // TracePacket.trusted_packet_sequence_id (uint32)
	fPacketSystemInfo       protowire.Number = 45  // TracePacket.system_info (SystemInfo)
	fBundleCPU              protowire.Number = 1   // FtraceEventBundle.cpu (uint32), ftrace/ftrace_event_bundle.proto
	fBundleEvent            protowire.Number = 2   // FtraceEventBundle.event (repeated FtraceEvent)
	fBundleLostEvents       protowire.Number = 3   // FtraceEventBundle.lost_events (bool)
	fBundlePrevBundleEndTS  protowire.Number = 10  // FtraceEventBundle.previous_bundle_end_timestamp (uint64)
	fSystemInfoUtsname      protowire.Number = 1   // SystemInfo.utsname (Utsname), common/system_info.proto
	fSystemInfoNumCPUs      protowire.Number = 8   // SystemInfo.num_cpus (uint32)
	fUtsnameSysname         protowire.Number = 1   // Utsname.sysname (string)
	fUtsnameVersion         protowire.Number = 2   // Utsname.version (string)
	fUtsnameRelease         protowire.Number = 3   // Utsname.release (string)
	fProcessTreeProcesses   protowire.Number = 1   // ProcessTree.processes (repeated Process), ps/process_tree.proto
	fProcessTreeThreads     protowire.Number = 2   // ProcessTree.threads (repeated Thread)
	fProcessPID             protowire.Number = 1   // ProcessTree.Process.pid (int32)
	fProcessPPID            protowire.Number = 2   // ProcessTree.Process.ppid (int32)
	fProcessCmdline         protowire.Number = 3   // ProcessTree.Process.cmdline (repeated string)
	fProcessCmdlineIsComm   protowire.Number = 9   // ProcessTree.Process.cmdline_is_comm (bool)
	fThreadTID              protowire.Number = 1   // ProcessTree.Thread.tid (int32)
	fThreadName             protowire.Number = 2   // ProcessTree.Thread.name (string)
	fThreadTGID             protowire.Number = 3   // ProcessTree.Thread.tgid (int32)
	fFtraceEventTimestamp   protowire.Number = 1   // FtraceEvent.timestamp (uint64, ns), ftrace/ftrace_event.proto
	fFtraceEventPID         protowire.Number = 2   // FtraceEvent.pid (uint32): the task the event happened in the context of
	fFtraceEventPrint       protowire.Number = 3   // FtraceEvent.print (PrintFtraceEvent)
	fFtraceEventSchedSwitch protowire.Number = 4   // FtraceEvent.sched_switch (SchedSwitchFtraceEvent)
	fFtraceEventSchedWakeup protowire.Number = 17  // FtraceEvent.sched_wakeup (SchedWakeupFtraceEvent)
	fFtraceEventSchedWaking protowire.Number = 20  // FtraceEvent.sched_waking (SchedWakingFtraceEvent)
	fFtraceEventWakeupNew   protowire.Number = 114 // FtraceEvent.sched_wakeup_new (SchedWakeupNewFtraceEvent)
	fFtraceEventTaskNewtask protowire.Number = 235 // FtraceEvent.task_newtask (TaskNewtaskFtraceEvent)
	fFtraceEventExit        protowire.Number = 238 // FtraceEvent.sched_process_exit (SchedProcessExitFtraceEvent)
	fFtraceEventFork        protowire.Number = 239 // FtraceEvent.sched_process_fork (SchedProcessForkFtraceEvent)
	fFtraceEventMigrate     protowire.Number = 491 // FtraceEvent.sched_migrate_task (SchedMigrateTaskFtraceEvent)

	// protos/perfetto/trace/ftrace/ftrace.proto
	fPrintBuf protowire.Number = 2 // PrintFtraceEvent.buf (string)

	// protos/perfetto/trace/ftrace/sched.proto
	fSwitchPrevComm  protowire.Number = 1 // SchedSwitchFtraceEvent.prev_comm (string)
	fSwitchPrevPID   protowire.Number = 2 // SchedSwitchFtraceEvent.prev_pid (int32)
	fSwitchPrevPrio  protowire.Number = 3 // SchedSwitchFtraceEvent.prev_prio (int32)
	fSwitchPrevState protowire.Number = 4 // SchedSwitchFtraceEvent.prev_state (int64, the kernel's state bits)
	fSwitchNextComm  protowire.Number = 5 // SchedSwitchFtraceEvent.next_comm (string)
	fSwitchNextPID   protowire.Number = 6 // SchedSwitchFtraceEvent.next_pid (int32)
	fSwitchNextPrio  protowire.Number = 7 // SchedSwitchFtraceEvent.next_prio (int32)
	// SchedWakingFtraceEvent, SchedWakeupFtraceEvent and
	// SchedWakeupNewFtraceEvent share these numbers.
	fWakeComm       protowire.Number = 1 // Sched{Waking,Wakeup,WakeupNew}FtraceEvent.comm (string)
	fWakePID        protowire.Number = 2 // ….pid (int32)
	fWakePrio       protowire.Number = 3 // ….prio (int32)
	fWakeSuccess    protowire.Number = 4 // ….success (int32)
	fWakeTargetCPU  protowire.Number = 5 // ….target_cpu (int32)
	fExitComm       protowire.Number = 1 // SchedProcessExitFtraceEvent.comm (string)
	fExitPID        protowire.Number = 2 // SchedProcessExitFtraceEvent.pid (int32)
	fExitTGID       protowire.Number = 3 // SchedProcessExitFtraceEvent.tgid (int32)
	fExitPrio       protowire.Number = 4 // SchedProcessExitFtraceEvent.prio (int32)
	fForkParentComm protowire.Number = 1 // SchedProcessForkFtraceEvent.parent_comm (string)
	fForkParentPID  protowire.Number = 2 // SchedProcessForkFtraceEvent.parent_pid (int32)
	fForkChildComm  protowire.Number = 3 // SchedProcessForkFtraceEvent.child_comm (string)
	fForkChildPID   protowire.Number = 4 // SchedProcessForkFtraceEvent.child_pid (int32)
	fMigrateComm    protowire.Number = 1 // SchedMigrateTaskFtraceEvent.comm (string)
	fMigratePID     protowire.Number = 2 // SchedMigrateTaskFtraceEvent.pid (int32)
	fMigratePrio    protowire.Number = 3 // SchedMigrateTaskFtraceEvent.prio (int32)
	fMigrateOrigCPU protowire.Number = 4 // SchedMigrateTaskFtraceEvent.orig_cpu (int32)
	fMigrateDestCPU protowire.Number = 5 // SchedMigrateTaskFtraceEvent.dest_cpu (int32)

	// protos/perfetto/trace/ftrace/task.proto
	fNewtaskPID        protowire.Number = 1 // TaskNewtaskFtraceEvent.pid (int32)
	fNewtaskComm       protowire.Number = 2 // TaskNewtaskFtraceEvent.comm (string)
	fNewtaskCloneFlags protowire.Number = 3 // TaskNewtaskFtraceEvent.clone_flags (uint64)
)
