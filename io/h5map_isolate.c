/* io/h5map_isolate.c: reading a map file that may be damaged or crafted in a child process, so
 * that a crash or a hang inside libhdf5 is an error, not the end of the caller.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libhdf5 1.10.8 does not bound its decoding of a file's metadata: fuzzing the reader found
 * crafted files on which it frees memory still in use or overruns a buffer decoding an attribute
 * message (H5O__msg_iterate_real from H5Aexists), allocates 2^61 bytes (H5C_protect), or leaves
 * objects open that its exit handler then cannot close ("HDF5: infinite loop closing library",
 * printed at exit). The reader (h5map_read.c) refuses what it can check before HDF5 reads it, but
 * the decoding of the metadata itself cannot be avoided. So the file is read in a child process,
 * which writes what it read, through pkmflex's own writer, to a private temporary directory and
 * exits with _exit (no exit handler runs there); this process then reads that file, whose
 * metadata is the writer's. The child's standard output and error go to /dev/null: HDF5's
 * messages (and a sanitizer's report of HDF5's memory errors) stay there. */
#define _DEFAULT_SOURCE /* mkdtemp, strsignal */

#include "io/h5_impl.h"
#include "pkm/io.h"
#include "pkm/map.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Default time limit of the child: HDF5 reads a sound map file at hundreds of MB/s; a limit
 * of a minute plus a second per 10 MB is far above what the reading, the writing and the
 * second reading take, and ends a reader that loops on a crafted file. */
#define ISOLATE_BASE_S      60.0
#define ISOLATE_BYTES_PER_S 1e7

/* The child: read path, write it to clean, send the outcome through fd. Never returns. */
static void read_in_child(const char *path, const char *clean, int fd)
{
    /* A crash inside libhdf5 ends the child: the caller's handlers (a crash reporter) are not
     * to run for it. */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
        signal(fatal[i], SIG_DFL);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    pkm_ctx c;
    pkm_ctx_clear(&c);
    pkm_map m;
    if (pkm_map_read_h5(path, &m, &c) == PKM_OK) {
        pkm_map_write_h5(&m, clean, &c);
        pkm_map_free(&m);
    }
    const ssize_t k = write(fd, &c, sizeof(c)); /* a pipe takes 512 bytes at once */
    _exit(k == (ssize_t)sizeof(c) ? 0 : 1);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wait for the child's message (into *c) and its end, at most limit seconds; the child is
 * killed at the limit. Returns the wait status, or -1 on a timeout (*timed_out set). */
static int wait_child(pid_t pid, int fd, double limit, pkm_ctx *c, size_t *got, int *timed_out)
{
    const double end = now_seconds() + limit;
    int open_fd = 1, wstatus = 0;
    *timed_out = 0;
    for (;;) {
        const double left = end - now_seconds();
        if (left <= 0.0) {
            kill(pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            *timed_out = 1;
            return -1;
        }
        if (open_fd) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            const int r = poll(&p, 1, (int)(left * 1000.0) + 1);
            if (r > 0) {
                const ssize_t k = read(fd, (char *)c + *got, sizeof(*c) - *got);
                if (k > 0) *got += (size_t)k;
                if (k == 0 || (k < 0 && errno != EINTR) || *got == sizeof(*c)) open_fd = 0;
            }
            continue;
        }
        const pid_t r = waitpid(pid, &wstatus, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) return wstatus;
        const struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
}

pkm_status pkm_map_read_h5_isolated(const char *path, double limit_s, pkm_map *map, pkm_ctx *ctx)
{
    if (map == NULL || path == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "map read: NULL map or path");
    memset(map, 0, sizeof(*map));
    struct stat sb;
    if (limit_s <= 0.0)
        limit_s = ISOLATE_BASE_S +
                  (stat(path, &sb) == 0 ? (double)sb.st_size : 0.0) / ISOLATE_BYTES_PER_S;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], clean[PATH_MAX + 16];
    snprintf(dir, sizeof(dir), "%s/pkmflex-read-XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        return PKM_FAIL(ctx, PKM_ERR_IO, "%s: cannot create a temporary directory %s: %s", path,
                        dir, strerror(errno));
    snprintf(clean, sizeof(clean), "%s/map.h5", dir);
    int fds[2] = {-1, -1};
    const pid_t pid = pipe(fds) == 0 ? fork() : -1;
    if (pid < 0) {
        const int e = errno;
        if (fds[0] >= 0) close(fds[0]);
        if (fds[1] >= 0) close(fds[1]);
        rmdir(dir);
        errno = e;
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: cannot start a process to read it: %s", path,
                        strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        read_in_child(path, clean, fds[1]);
    }
    close(fds[1]);
    pkm_ctx c;
    size_t got = 0;
    int timed_out = 0;
    const int wstatus = wait_child(pid, fds[0], limit_s, &c, &got, &timed_out);
    close(fds[0]);
    pkm_status st = PKM_OK;
    if (timed_out)
        st = PKM_FAIL(ctx, PKM_ERR_PARSE,
                      "%s: not read in %.0f s (libhdf5 looping on it?): a damaged or crafted "
                      "file",
                      path, limit_s);
    else if (WIFSIGNALED(wstatus) || got != sizeof(c))
        st = PKM_FAIL(ctx, PKM_ERR_PARSE,
                      "%s: the process reading it ended %s %d%s%s (inside libhdf5): a damaged or "
                      "crafted file",
                      path, WIFSIGNALED(wstatus) ? "on signal" : "with status",
                      WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus),
                      WIFSIGNALED(wstatus) ? ", " : "",
                      WIFSIGNALED(wstatus) ? strsignal(WTERMSIG(wstatus)) : "");
    else if (c.status != PKM_OK)
        st = pkm_ctx_fail(ctx, c.status, __FILE__, __LINE__, "%s", c.msg);
    if (st == PKM_OK) st = pkm_map_read_h5(clean, map, ctx);
    unlink(clean);
    strcat(clean, ".tmp"); /* left by a child killed while writing (pkm_map_write_h5) */
    unlink(clean);
    rmdir(dir);
    return st;
}
