/* The end-to-end tests' launcher and file reader (launch.h). */
#define _GNU_SOURCE
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *launch_env(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v) {
		fprintf(stderr, "%s is not set: run this test through ctest\n", name);
		exit(EXIT_FAILURE);
	}
	return v;
}

/* Forks and execs argv (NULL-ended), stdout and stderr to log. */
static pid_t spawn(const char *const *argv, const char *log)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

pid_t launch_start(int np, const char *log, const char *const *args)
{
	const char *argv[64];
	char npbuf[16];
	int k = 0;
	snprintf(npbuf, sizeof npbuf, "%d", np);
	argv[k++] = launch_env("SW_MPIEXEC");
	argv[k++] = "-np";
	argv[k++] = npbuf;
	argv[k++] = "--oversubscribe";
	argv[k++] = launch_env("SW_SWEEP");
	for (int i = 0; args[i] && k < 63; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	return spawn(argv, log);
}

pid_t launch_start_alone(const char *log, const char *const *args)
{
	const char *argv[64];
	int k = 0;
	argv[k++] = launch_env("SW_SWEEP");
	for (int i = 0; args[i] && k < 63; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	return spawn(argv, log);
}

int launch_finish_within(pid_t pid, double limit_s)
{
	struct timespec t0, t;
	int status;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) * 1e-9 > limit_s) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(10000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int launch_finish(pid_t pid)
{
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int launch_run(int np, const char *log, const char *const *args)
{
	return launch_finish(launch_start(np, log, args));
}

/* State letter and parent of a process, from /proc; 0 when it is gone. */
static char proc_state(pid_t pid, pid_t *ppid)
{
	char path[64], state = 0;
	int parent = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (f && fscanf(f, "%*d (%*[^)]) %c %d", &state, &parent) != 2)
		state = 0;
	if (f)
		fclose(f);
	if (ppid)
		*ppid = parent;
	return state;
}

/* The MPI rank Open MPI gave a process, from its environment; -1. */
static int rank_of(pid_t pid)
{
	static char buf[1 << 16];
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (strncmp(buf + i, "OMPI_COMM_WORLD_RANK=", 21) == 0)
			return atoi(buf + i + 21);
	return -1;
}

int launch_ranks(pid_t mpirun, pid_t *pids, int *ranks, int max)
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) && n < max) {
		pid_t pid = (pid_t)atoi(e->d_name), ppid;
		if (pid > 0 && proc_state(pid, &ppid) && ppid == mpirun) {
			pids[n] = pid;
			ranks[n++] = rank_of(pid);
		}
	}
	if (d)
		closedir(d);
	return n;
}

void launch_kill_all(pid_t mpirun)
{
	pid_t pids[64];
	int ranks[64];
	int n = launch_ranks(mpirun, pids, ranks, 64);
	kill(mpirun, SIGKILL);
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	launch_finish(mpirun);
	for (int i = 0; i < n; i++)
		for (int t = 0; t < 1000; t++) {
			char st = proc_state(pids[i], NULL);
			if (st == 0 || st == 'Z')
				break;
			usleep(10000);
		}
}

const char *launch_slurp(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

char *launch_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = calloc(1, (size_t)n + 1);
	ck_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

void launch_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

int launch_make_tmpdir(char *dir, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(dir, len, "%s/sweep-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(dir) ? 0 : -1;
}

static hssize_t rows_opened(const char *path, const char *dataset, uint64_t **ids, unsigned flags)
{
	/* a killed writer's lock goes with its process, which a loaded machine
	 * may take a few seconds to reap */
	hid_t f = -1;
	for (int i = 0; i < 200 && (f = H5Fopen(path, flags, H5P_DEFAULT)) < 0; i++)
		usleep(50000);
	if (f < 0)
		return -1;
	hssize_t rows = -1;
	hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
	hid_t s = d >= 0 ? H5Dget_space(d) : -1;
	hsize_t n = 0;
	if (s >= 0 && H5Sget_simple_extent_dims(s, &n, NULL) == 1)
		rows = (hssize_t)n;
	if (ids && rows >= 0) {
		*ids = calloc(n + 1, sizeof **ids);
		hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(uint64_t));
		H5Tinsert(t, "point_id", 0, H5T_NATIVE_UINT64);
		if (n && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *ids) < 0)
			rows = -1;
		H5Tclose(t);
	}
	if (s >= 0)
		H5Sclose(s);
	if (d >= 0)
		H5Dclose(d);
	H5Fclose(f);
	return rows;
}

hssize_t launch_rows(const char *path, const char *dataset, uint64_t **ids)
{
	return rows_opened(path, dataset, ids, H5F_ACC_RDONLY);
}

hssize_t launch_rows_swmr(const char *path, const char *dataset, uint64_t **ids)
{
	return rows_opened(path, dataset, ids, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ);
}

hssize_t launch_rows_seen(const char *path)
{
	uint64_t *ids = NULL;
	hssize_t n = access(path, F_OK) == 0 ? launch_rows_swmr(path, "/measurements", &ids) : -1;
	hssize_t k = 0;
	for (hssize_t i = 0; i < n; i++)
		k += ids[i] != UINT64_MAX;
	free(ids);
	return n < 0 ? -1 : k;
}

hssize_t launch_wait_for_rows(const char *path, hssize_t min, pid_t run)
{
	for (;;) {
		hssize_t k = launch_rows_seen(path);
		if (k >= min)
			return k;
		int status;
		if (waitpid(run, &status, WNOHANG) != 0)
			return -1;
		usleep(5000);
	}
}

int launch_flags_set(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0)
		return 1;
	H5Fclose(f);
	return 0;
}

int launch_h5clear_h5dump(const char *path)
{
	char cmd[2200];
	if (system("command -v h5clear >/dev/null 2>&1 && command -v h5dump >/dev/null 2>&1") != 0)
		return 77;
	snprintf(cmd, sizeof cmd,
		 "cp '%s' '%s.cleared' && h5clear -s '%s.cleared' && h5dump -H '%s.cleared' "
		 ">/dev/null",
		 path, path, path, path);
	return system(cmd);
}

int launch_run_suite(Suite *s, const char *dir)
{
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (failed) /* the files of a failure stay for a look */
		fprintf(stderr, "files kept in %s\n", dir);
	else if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return failed ? 1 : 0;
}

void *launch_column(const char *path, const char *table, const char *name, hid_t type, size_t elem,
		    size_t *n)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "cannot open %s", path);
	hid_t d = H5Dopen2(f, table, H5P_DEFAULT);
	ck_assert_msg(d >= 0, "%s has no %s", path, table);
	hid_t s = H5Dget_space(d);
	hsize_t rows = 0;
	H5Sget_simple_extent_dims(s, &rows, NULL);
	H5Sclose(s);
	hid_t t = type;
	if (type < 0) { /* a string */
		t = H5Tcopy(H5T_C_S1);
		H5Tset_size(t, elem);
	}
	hid_t one = H5Tcreate(H5T_COMPOUND, elem);
	H5Tinsert(one, name, 0, t);
	void *buf = calloc(rows ? rows : 1, elem);
	ck_assert_msg(H5Dread(d, one, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
		      "%s: cannot read %s.%s", path, table, name);
	H5Tclose(one);
	if (type < 0)
		H5Tclose(t);
	H5Dclose(d);
	H5Fclose(f);
	*n = (size_t)rows;
	return buf;
}

size_t launch_keep_rows(const char *path, const char *table, const uint64_t *ids, size_t n_ids)
{
	size_t n, k = 0;
	uint64_t *pid =
		launch_column(path, table, "point_id", H5T_NATIVE_UINT64, sizeof(uint64_t), &n);
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "cannot open %s to write", path);
	hid_t d = H5Dopen2(f, table, H5P_DEFAULT), ft = H5Dget_type(d);
	hid_t mt = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
	size_t size = H5Tget_size(mt);
	char *rows = calloc(n ? n : 1, size);
	ck_assert_msg(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0,
		      "%s: cannot read %s", path, table);
	for (size_t i = 0; i < n; i++) {
		int want = 0;
		for (size_t j = 0; j < n_ids && !want; j++)
			want = pid[i] == ids[j];
		if (want)
			memmove(rows + k++ * size, rows + i * size, size);
	}
	hsize_t kept = k;
	ck_assert_msg(H5Dset_extent(d, &kept) >= 0, "%s: cannot shrink %s", path, table);
	if (k) {
		hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &kept, NULL);
		ck_assert_msg(H5Dwrite(d, mt, ms, fs, H5P_DEFAULT, rows) >= 0,
			      "%s: cannot write %s", path, table);
		H5Sclose(ms);
		H5Sclose(fs);
	}
	free(rows);
	free(pid);
	H5Tclose(mt);
	H5Tclose(ft);
	H5Dclose(d);
	H5Fclose(f);
	return k;
}

size_t launch_old_fleet(const char *fleet, const char *to)
{
	static const uint64_t ids[] = {
		0x1fd17c0582c5cac5, 0xf35901ac7db4a7b0, 0xb12cf8a2e66c30af,
		0xf4fae5d0c5bc13d7, 0x026ef6bffe9b2e7d, 0xc9b9edc7c0ef0928,
		0x7b08a2fe6060b534, 0x6d018564a7529a98, 0xfe66e3ab579db3bb,
	};
	size_t len;
	char *bytes = launch_read_file(fleet, &len);
	ck_assert_msg(bytes, "cannot read %s", fleet);
	FILE *f = fopen(to, "wb");
	ck_assert_msg(f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0, "cannot write %s",
		      to);
	free(bytes);
	return launch_keep_rows(to, "measurements", ids, sizeof ids / sizeof ids[0]);
}
