// Start-up time of a command: `startup N CMD [ARGS...]` spawns CMD N times (posix_spawn, output
// to /dev/null, standard input /dev/null), waits for each, and prints the median and the 10th
// percentile of the wall time in nanoseconds. posix_spawn adds far less than a shell or Python
// loop would, so the ratio of two commands' medians is their own.
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: startup N CMD [ARGS...]\n"); return 64; }
    int n = atoi(argv[1]);
    if (n < 1) n = 1;
    long long *times = calloc((size_t)n, sizeof *times);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    for (int i = 0; i < n; i++) {
        struct timespec start, end;
        pid_t pid;
        int status;
        clock_gettime(CLOCK_MONOTONIC, &start);
        if (posix_spawn(&pid, argv[2], &actions, NULL, argv + 2, environ) != 0) { perror(argv[2]); return 1; }
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s did not exit 0\n", argv[2]);
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        times[i] = (end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
    }
    qsort(times, (size_t)n, sizeof *times, compare);
    printf("%lld %lld\n", times[n / 2], times[n / 10]);
    return 0;
}
