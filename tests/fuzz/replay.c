/*
 * Runs files through a fuzz target's LLVMFuzzerTestOneInput without
 * libFuzzer: how the ordinary test build (gcc, with AddressSanitizer and
 * UndefinedBehaviorSanitizer where it has them) replays the committed corpus,
 * and how a crash file found elsewhere is reproduced. Arguments are files or
 * directories (their plain files, in name order, not recursing). A crash
 * aborts; finding no input at all is an error too, so that a wrong corpus
 * path cannot pass as an empty success.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds one file, read into a buffer of exactly its size so that a read
 * past the end is caught. 0, or -1 after printing why the file was not read. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		uint8_t *nb;
		size_t r;
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				goto out;
			}
			buf = nb;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		goto out;
	}
	/* Exactly len bytes, so ASan sees the end of the input where it is. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		goto out;
	}
	memcpy(exact, buf, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	rc = 0;
out:
	free(buf);
	fclose(f);
	return rc;
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Runs every plain file in dir; returns how many, or -1. */
static long run_dir(const char *dir)
{
	struct dirent **names;
	long count = 0;
	int n = scandir(dir, &names, skip_dots, alphasort);

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (count >= 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			count = run_file(path) ? -1 : count + 1;
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		long n;
		if (stat(argv[i], &sb)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(sb.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
		if (n < 0)
			return 1;
		total += n;
	}
	if (!total) {
		fprintf(stderr, "replay: no input files found\n");
		return 1;
	}
	printf("replay: %ld inputs, no crash\n", total);
	return 0;
}
