// Package host runs a workload on the real kernel and records it: the
// same workload file the simulator runs, as real threads and processes,
// traced through a private tracefs instance, so that the recording goes
// through the same analysis as a simulated run.
//
// The executor's threads are C (worker.c): a workload process never runs Go
// code, so the kernel schedules only the workload. This package prepares,
// starts, watches and cleans up:
//
//   - preflight: root, tracefs, the CPUs, a cgroup cpu controller;
//   - a tracefs instance, schedlab-<pid>, with the scheduler events, the
//     mono clock and a buffer sized for the run;
//   - a cgroup container, schedlab-<pid>, holding the whole workload (one
//     level below the root, like the autogroup a session would get), with a
//     child per task group;
//   - the workload's first process in a new session, started when it is in
//     its cgroup and tracing is on;
//   - at the end, on a signal or a timeout: every process of the session
//     killed and reaped (this process is their subreaper, so orphans come
//     back to it), the cgroups removed, the instance removed.
package host
