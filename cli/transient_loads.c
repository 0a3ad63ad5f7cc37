/* cli/transient_loads.c: the loads the time-domain commands take: --wrench (dynamics,
 * transient), the external wrench on the platform, six numbers or a CSV time series; --weights
 * and --preload (dynamics), a redundant actuation's drives.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"
#include "pkm/io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int cli_parse_wrench(const char *spec, double w[6], pkm_trajectory **series)
{
    static const char *const names[6] = {"fx", "fy", "fz", "mx", "my", "mz"};
    const size_t n = strlen(spec);
    if (strchr(spec, '/') != NULL || (n > 4 && strcmp(spec + n - 4, ".csv") == 0)) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const pkm_status st = pkm_wrench_read_csv(spec, series, &ctx);
        return st == PKM_OK ? 0 : cli_report(st, &ctx);
    }
    char tail = 0;
    if (sscanf(spec, "%lf,%lf,%lf,%lf,%lf,%lf%c", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5],
               &tail) != 6)
        return cli_usage_error("--wrench '%s': expected FX,FY,FZ,MX,MY,MZ (N, N m) or a file "
                               "FILE.csv (header t,fx,fy,fz,mx,my,mz)",
                               spec);
    for (int k = 0; k < 6; k++)
        if (!isfinite(w[k]))
            return cli_usage_error("--wrench '%s': component %s is not finite", spec, names[k]);
    return 0;
}

/* n plain numbers into v (no units: SI); 1 if parsed and finite. */
static int parse_numbers(const char *text, int n, double *v)
{
    static const char *const none[PKM_POSE_MAX] = {"", "", "", "", "", "", "", "",
                                                   "", "", "", "", "", "", "", ""};
    int ok = n >= 1 && n <= PKM_POSE_MAX && cli_parse_pose(text, n, none, v);
    for (int i = 0; ok && i < n; i++)
        ok = isfinite(v[i]);
    return ok;
}

int cli_parse_weights(const char *text, int n, double *w)
{
    int ok = parse_numbers(text, n, w);
    for (int i = 0; ok && i < n; i++)
        ok = w[i] > 0.0;
    return ok ? 0 : cli_usage_error("--weights '%s': expected %d weights > 0", text, n);
}

int cli_parse_preload(const char *text, int n, double *p)
{
    return parse_numbers(text, n, p)
               ? 0
               : cli_usage_error("--preload '%s': expected %d drives (N m or N)", text, n);
}
