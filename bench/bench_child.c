/* bench/bench_child.c: map_bench's shared helpers (bench/bench.h), and its forked measurements:
 * every measurement runs in a child of its own (own peak memory, a time limit, no state shared
 * between measurements); the parent only schedules and prints.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench.h"
#include "pkm/casefile.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

long maxrss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return ru.ru_maxrss;
}

void print_failure(const char *what, pkm_status st, const pkm_ctx *ctx)
{
    printf("  FAILED %s: %s (%d): %s\n", what, pkm_status_str(st), (int)st, ctx->msg);
}

const char *form_name(pkm_formulation f)
{
    return pkm_formulation_types[f].name;
}

/* The built-in NaVARo parameters (cases/navaro.yaml); PKM_OK or the failure in ctx. */
pkm_status navaro_defaults(pkm_navaro_params *par, pkm_ctx *ctx)
{
    void *p = NULL;
    pkm_status st = pkm_case_params_create(pkm_case_find("navaro"), &p, ctx);
    if (st == PKM_OK) *par = *(const pkm_navaro_params *)p;
    pkm_case_params_destroy(&p);
    return st;
}

/* Run fn(arg, res) in a child with a time limit; its result (res_size bytes) comes back through
 * a pipe. The child may print; the parent flushes stdout first so nothing is printed twice. */
int run_child(child_fn fn, const void *arg, void *res, size_t res_size, unsigned limit_s,
              child_outcome *out)
{
    memset(out, 0, sizeof(*out));
    int fd[2];
    if (pipe(fd) != 0) {
        printf("  cannot create a pipe: %s\n", strerror(errno));
        return -1;
    }
    fflush(stdout);
    const double t0 = now_s();
    const pid_t pid = fork();
    if (pid < 0) {
        printf("  cannot fork: %s\n", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        alarm(limit_s);
        const int rc = fn(arg, res);
        fflush(stdout);
        const char *b = res;
        size_t left = res_size;
        while (left > 0) {
            const ssize_t w = write(fd[1], b, left);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) _exit(3);
            b += w;
            left -= (size_t)w;
        }
        close(fd[1]);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fd[1]);
    char *b = res;
    while (out->received < res_size) {
        const ssize_t r = read(fd[0], b + out->received, res_size - out->received);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        out->received += (size_t)r;
    }
    close(fd[0]);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0) {
        if (errno != EINTR) {
            printf("  waitpid: %s\n", strerror(errno));
            return -1;
        }
    }
    out->wall_s = now_s() - t0;
    if (WIFEXITED(wst)) {
        out->exit_code = WEXITSTATUS(wst);
        out->ok = out->exit_code == 0 && out->received == res_size;
    } else if (WIFSIGNALED(wst)) {
        out->signal_no = WTERMSIG(wst);
        out->timed_out = out->signal_no == SIGALRM;
    }
    return 0;
}

void print_child_failure(const char *what, const child_outcome *o)
{
    if (o->timed_out)
        printf("  FAILED %s: time limit exceeded after %.1f s (killed)\n", what, o->wall_s);
    else if (o->signal_no != 0)
        printf("  FAILED %s: killed by signal %d after %.1f s\n", what, o->signal_no, o->wall_s);
    else if (o->exit_code != 0)
        printf("  FAILED %s: child exited with %d after %.1f s\n", what, o->exit_code, o->wall_s);
    else
        printf("  FAILED %s: incomplete result (%zu bytes)\n", what, o->received);
}
