/* tests/fuzz/fuzz_trajectory_csv.c: trajectories from CSV samples (io/trajectory_csv.c) from
 * arbitrary bytes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The first byte picks how many of the coordinates x, y, theta the file must hold (1 to 3); the
 * rest is the file. */
#include "fuzz_util.h"

#include "pkm/io.h"
#include "pkm/trajectory.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[3] = {"x", "y", "theta"};
    if (size < 1) return 0;
    const int n = 1 + data[0] % 3;
    char path[256];
    if (!fuzz_tempfile(data + 1, size - 1, path, sizeof(path))) return 0;
    pkm_trajectory *tr = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (pkm_trajectory_read_csv(path, names, n, &tr, &ctx) == PKM_OK) {
        /* What inverse dynamics relies on: n coordinates, an increasing span, evaluations at
         * its ends and inside it that succeed, one beyond it that is refused. */
        double t0, t1, q[3], qd[3], qdd[3];
        if (tr == NULL || pkm_trajectory_ncoord(tr) != n) abort();
        pkm_trajectory_span(tr, &t0, &t1);
        if (!(t1 > t0)) abort();
        const double w = t1 - t0;
        for (int k = 0; k <= 4; k++) {
            const double t = k == 4 ? t1 : isfinite(w) ? t0 + w * k / 4.0 : t0;
            if (pkm_trajectory_eval(tr, t, q, qd, qdd, &ctx) != PKM_OK) abort();
        }
        if (isfinite(t1 + w) &&
            pkm_trajectory_eval(tr, t1 + w, q, qd, qdd, &ctx) != PKM_ERR_INVALID)
            abort();
    } else if (tr != NULL || ctx.msg[0] == '\0') {
        abort();
    }
    pkm_trajectory_destroy(&tr);
    unlink(path);
    return 0;
}
