// The cost probe: how long this machine takes for the kernel paths the
// simulator prices as engine parameters (sim.Params): a context switch, a
// thread's creation, a process's fork + exec + exit, and a timer's delivery
// to a sleeping thread. Each is a median over repetitions on one CPU, in
// CLOCK_MONOTONIC (in a TCG guest with icount, instructions), so that a
// figure is the path's cost and not the machine's noise.

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

static int64_t mono(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t thread_cpu(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp64(const void *a, const void *b) {
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, int n) {
	qsort(v, n, sizeof *v, cmp64);
	return v[n / 2];
}

static int pin(int cpu) {
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof s, &s);
}

// ---- context switch: two threads on one CPU hand a byte back and forth
// over two pipes (lmbench's lat_ctx with no working set). The pipe work
// alone, one thread writing and reading its own pipes, is measured too and
// taken off, so what is left is the switch: the wakeup's enqueue, the
// scheduler's pick and the switch between two threads of one address
// space.

struct pingpong {
	int ab[2], ba[2];
	int n, cpu;
};

static void *pong(void *arg) {
	struct pingpong *p = arg;
	char c;
	pin(p->cpu);
	for (int i = 0; i < p->n; i++) {
		if (read(p->ab[0], &c, 1) != 1 || write(p->ba[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

#define ROUNDS 9
#define TRIPS 500

static int64_t probe_ctxsw(int cpu, int64_t *pipe_ns) {
	int64_t sw[ROUNDS], self[ROUNDS];
	char c = 'x';
	for (int r = 0; r < ROUNDS; r++) {
		struct pingpong p = {.n = TRIPS, .cpu = cpu};
		if (pipe(p.ab))
			return -1;
		if (pipe(p.ba)) {
			close(p.ab[0]), close(p.ab[1]);
			return -1;
		}
		pthread_t th;
		if (pthread_create(&th, NULL, pong, &p)) {
			close(p.ab[0]), close(p.ab[1]), close(p.ba[0]), close(p.ba[1]);
			return -1;
		}
		// Let the partner pin itself and block in read first.
		usleep(2000);
		int64_t t0 = mono();
		for (int i = 0; i < TRIPS; i++) {
			if (write(p.ab[1], &c, 1) != 1 || read(p.ba[0], &c, 1) != 1)
				break;
		}
		int64_t t1 = mono();
		pthread_join(th, NULL);
		// The same pipe traffic without a partner: two writes and two
		// reads per trip, as above, with no switch between them.
		int64_t t2 = mono();
		for (int i = 0; i < TRIPS; i++) {
			if (write(p.ab[1], &c, 1) != 1 || read(p.ab[0], &c, 1) != 1 ||
			    write(p.ba[1], &c, 1) != 1 || read(p.ba[0], &c, 1) != 1)
				break;
		}
		int64_t t3 = mono();
		close(p.ab[0]), close(p.ab[1]), close(p.ba[0]), close(p.ba[1]);
		// A round trip is two switches and the pipe work of a trip.
		sw[r] = (t1 - t0) / TRIPS;
		self[r] = (t3 - t2) / TRIPS;
	}
	*pipe_ns = median(self, ROUNDS);
	int64_t s = (median(sw, ROUNDS) - *pipe_ns) / 2;
	return s > 0 ? s : 0;
}

// ---- thread creation: the parent's CPU time in pthread_create (clone
// with the thread flags, the stack's mapping), which is what the
// simulator's cost_fork_ns charges a parent. The child exits at once.

static void *nothing(void *arg) { return arg; }

#define CLONES 101

static int64_t probe_clone(void) {
	int64_t v[CLONES];
	for (int i = 0; i < CLONES; i++) {
		pthread_t th;
		int64_t t0 = thread_cpu();
		if (pthread_create(&th, NULL, nothing, NULL))
			return -1;
		v[i] = thread_cpu() - t0;
		pthread_join(th, NULL);
	}
	return median(v, CLONES);
}

// ---- process start: fork, exec of this very binary (as a workload's
// "process" task starts) that exits in its constructor, and the parent's
// wait. The whole round trip, in wall time on one CPU.

#define SPAWNS 15

static int64_t probe_forkexec(void) {
	int64_t v[SPAWNS];
	char env[] = SL_PROBE_ENV "=exit";
	char *envp[] = {env, NULL};
	char name[] = "schedlab-probe";
	char *argv[] = {name, NULL};
	for (int i = 0; i < SPAWNS; i++) {
		int64_t t0 = mono();
		pid_t pid = fork();
		if (pid == 0) {
			execve("/proc/self/exe", argv, envp);
			_exit(127);
		}
		if (pid < 0)
			return -1;
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		v[i] = mono() - t0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return -1;
	}
	return median(v, SPAWNS);
}

// ---- timer delivery: a thread sleeps to an absolute time 1 ms ahead
// (clock_nanosleep, an hrtimer) on an otherwise idle CPU and notes how late
// it runs again: the timer interrupt, the wakeup, the idle exit and the
// switch to the thread, to user code.

#define SLEEPS 101

static int64_t probe_timer(void) {
	int64_t v[SLEEPS];
	for (int i = 0; i < SLEEPS; i++) {
		int64_t want = mono() + 1000000;
		struct timespec ts = {.tv_sec = want / 1000000000, .tv_nsec = want % 1000000000};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		v[i] = mono() - want;
	}
	return median(v, SLEEPS);
}

int sl_probe(int cpu, struct sl_probe *out) {
	memset(out, 0, sizeof *out);
	cpu_set_t old;
	sched_getaffinity(0, sizeof old, &old);
	// Timer slack would add up to 50 µs to every sleep.
	int slack = prctl(PR_GET_TIMERSLACK);
	prctl(PR_SET_TIMERSLACK, 1);
	int err = pin(cpu) ? errno : 0;
	if (!err) {
		out->ctxsw_ns = probe_ctxsw(cpu, &out->pipe_ns);
		out->clone_ns = probe_clone();
		out->forkexec_ns = probe_forkexec();
		out->timer_ns = probe_timer();
	}
	sched_setaffinity(0, sizeof old, &old);
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, slack);
	return err;
}

// A probe's exec'd child ends here, before the Go runtime (or the host
// worker's constructor) does anything.
__attribute__((constructor)) static void schedlab_probe_child(void) {
	if (getenv(SL_PROBE_ENV))
		_exit(0);
}
