/* bench/scipy_part.c: map_bench's side-by-side run of SciPy's eigh and eigsh on the pencils of a
 * map's poses (bench/eig_scipy.py), through the same NumPy/SciPy as Debian installs, hence the
 * same system BLAS/LAPACK as pkmflex.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench.h"
#include "pkm/analysis.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Every OK pose's pencil of map in formulation f, built as a sweep builds it, appended to fp
 * (format in eig_scipy.py); *count: the pencils written. 0 if written. */
static int write_pencils(const pkm_navaro_params *par, const pkm_map *map, pkm_formulation f,
                         FILE *fp, int64_t *count)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_asm_cache *cache = NULL;
    int64_t version = -1, nnz = 0;
    *count = 0;
    int rc = pkm_asm_cache_create(&cache, &ctx) == PKM_OK ? 0 : 1;
    for (int64_t p = 0; p < map->npoints && rc == 0; p++) {
        if (map->status[p] != PKM_POSE_OK) continue;
        double pose[PKM_POSE_MAX];
        pkm_map_pose(map, p, pose);
        pkm_model *m = NULL;
        const pkm_pencil *pen = NULL;
        int64_t v = 0;
        pkm_status st = pkm_navaro_build(par, pose, &m, &ctx);
        if (st == PKM_OK) st = pkm_assemble_cached(m, f, cache, &pen, &v, NULL, &ctx);
        pkm_model_destroy(&m);
        if (st != PKM_OK || (version >= 0 && v != version)) {
            print_failure("scipy: a pose's pencil (or another pattern)", st, &ctx);
            rc = 1;
            break;
        }
        if (version < 0) {
            const int64_t head[3] = {pen->n, pen->nnz, 0};
            nnz = pen->nnz;
            version = v;
            rc |= fwrite(head, sizeof(head), 1, fp) != 1 ||
                  fwrite(pen->colptr, sizeof(int64_t), (size_t)pen->n + 1, fp) !=
                      (size_t)pen->n + 1 ||
                  fwrite(pen->rowind, sizeof(int64_t), (size_t)nnz, fp) != (size_t)nnz;
        }
        rc |= fwrite(pen->k, sizeof(double), (size_t)nnz, fp) != (size_t)nnz ||
              fwrite(pen->m, sizeof(double), (size_t)nnz, fp) != (size_t)nnz ||
              fwrite(map->freq_hz + p * map->nev, sizeof(double), (size_t)map->nev, fp) !=
                  (size_t)map->nev;
        (*count)++;
    }
    pkm_asm_cache_destroy(&cache);
    if (rc == 0 && *count > 0)
        rc = fseek(fp, 2 * (long)sizeof(int64_t), SEEK_SET) != 0 ||
             fwrite(count, sizeof(*count), 1, fp) != 1;
    return rc;
}

int map_scipy(const pkm_navaro_params *par, const pkm_map *map, pkm_formulation f, scipy_rates *out)
{
    char path[] = "/tmp/pkm_map_bench_XXXXXX";
    const int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fp == NULL) {
        printf("  scipy: cannot create a temporary file\n");
        if (fd >= 0) close(fd);
        return 1;
    }
    int64_t count = 0;
    int rc = write_pencils(par, map, f, fp, &count);
    rc |= fclose(fp) != 0;
    if (rc == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "%s %s/bench/eig_scipy.py %s %d 2>&1", PKM_PYTHON,
                 PKM_SOURCE_DIR, path, map->nev);
        FILE *pp = popen(cmd, "r");
        long long n = 0;
        double t_eigh = NAN, t_eigsh = NAN;
        if (pp == NULL ||
            fscanf(pp, "%lld %lf %lf %lf %lf", &n, &t_eigh, &t_eigsh, &out->diff_eigh,
                   &out->diff_eigsh) != 5 ||
            n != count) {
            printf("  scipy: %s did not run (python3 with NumPy and SciPy needed)\n", cmd);
            rc = 1;
        } else {
            out->eigh = (double)n / t_eigh;
            out->eigsh = (double)n / t_eigsh;
        }
        if (pp != NULL) pclose(pp);
    }
    remove(path);
    return rc;
}
