/* tests/test_studies_track.c: mode tracking across poses (studies/track.c, pkm/track.h): the
 * link between two poses on synthetic mode sets with known answers, the propagation over a map's
 * grid, and a NaVARo line on which modes cross.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "pkm/casefile.h"
#include "pkm/map.h"
#include "pkm/track.h"
#include "studies/studies_impl.h"

#include <stdlib.h>
#include <string.h>

/* Deterministic pseudo-random numbers in [-1, 1) (a 64-bit LCG, Knuth MMIX constants). */
static double rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

/* n x m column-major matrix with orthonormal columns (Gram-Schmidt of random columns). */
static void random_orthonormal(int n, int m, uint64_t seed, double *q)
{
    uint64_t s = seed;
    for (int k = 0; k < m; k++) {
        double *x = q + (size_t)k * (size_t)n;
        for (int i = 0; i < n; i++)
            x[i] = rnd(&s);
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < k; j++) {
                const double *y = q + (size_t)j * (size_t)n;
                double r = 0.0;
                for (int i = 0; i < n; i++)
                    r += y[i] * x[i];
                for (int i = 0; i < n; i++)
                    x[i] -= r * y[i];
            }
        double nrm = 0.0;
        for (int i = 0; i < n; i++)
            nrm += x[i] * x[i];
        for (int i = 0; i < n; i++)
            x[i] /= sqrt(nrm);
    }
}

/* Plain MAC of two vectors, written out independently of the library. */
static double mac_of(int n, const double *a, const double *b)
{
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (int i = 0; i < n; i++) {
        ab += a[i] * b[i];
        aa += a[i] * a[i];
        bb += b[i] * b[i];
    }
    return ab * ab / (aa * bb);
}

static void test_clusters(void **state)
{
    (void)state;
    const double f[7] = {0.0, 0.0, 10.0, 10.0 + 1e-9, 10.0 + 2e-9, 10.5, 20.0};
    int first[7];
    pkm_track_clusters(7, f, 1e-6, first);
    const int want[7] = {0, 0, 2, 2, 2, 5, 6};
    for (int k = 0; k < 7; k++)
        assert_int_equal(first[k], want[k]);
    pkm_track_clusters(7, f, 0.0, first);
    const int exact[7] = {0, 0, 2, 3, 4, 5, 6};
    for (int k = 0; k < 7; k++)
        assert_int_equal(first[k], exact[k]);
}

/* Two branches cross between the poses: the shapes, not the ranks, decide the link. */
static void test_crossing(void **state)
{
    (void)state;
    enum { N = 12, NEV = 5 };
    double a[N * NEV], b[N * NEV], noise[N * NEV];
    random_orthonormal(N, NEV, 1, a);
    random_orthonormal(N, NEV, 2, noise);
    /* Pose b: physical modes 1 and 2 swap ranks, 3 and 4 too; every shape changes a little. */
    const int perm[NEV] = {0, 2, 1, 4, 3}; /* rank at b of mode i of a */
    for (int i = 0; i < NEV; i++)
        for (int r = 0; r < N; r++)
            b[perm[i] * N + r] = a[i * N + r] + 0.05 * noise[i * N + r];
    /* b's columns scaled: the MAC does not depend on the scaling */
    for (int r = 0; r < N; r++)
        b[2 * N + r] *= -3.0;
    const double fa[NEV] = {1.0, 2.0, 2.5, 4.0, 4.2}, fb[NEV] = {1.1, 2.1, 2.4, 4.05, 4.15};
    int match[NEV];
    double mac[NEV];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_track_link(N, NEV, fa, a, fb, b, NULL, 1e-5, match, mac, &ctx), &ctx);
    for (int i = 0; i < NEV; i++) {
        assert_int_equal(match[i], perm[i]);
        assert_close(mac[i], mac_of(N, a + i * N, b + perm[i] * N), 1e-12, 0);
        assert_true(mac[i] > 0.95);
    }
}

/* The assignment maximises the summed MAC: brute force over all permutations of random,
 * unrelated shapes (distinct frequencies, so no clusters). */
static void test_assignment_optimal(void **state)
{
    (void)state;
    enum { N = 9, NEV = 6 };
    double a[N * NEV], b[N * NEV], m[NEV][NEV];
    const double f[NEV] = {1, 2, 3, 4, 5, 6};
    for (uint64_t seed = 10; seed < 30; seed++) {
        random_orthonormal(N, NEV, seed, a);
        random_orthonormal(N, NEV, seed + 1000, b);
        for (int i = 0; i < NEV; i++)
            for (int j = 0; j < NEV; j++)
                m[i][j] = mac_of(N, a + i * N, b + j * N);
        int p[NEV] = {0, 1, 2, 3, 4, 5};
        double best = -1.0;
        /* Heap's algorithm over the 720 permutations. */
        int c[NEV] = {0};
        for (int i = 0;;) {
            double s = 0.0;
            for (int k = 0; k < NEV; k++)
                s += m[k][p[k]];
            best = fmax(best, s);
            while (i < NEV && c[i] >= i)
                c[i++] = 0;
            if (i == NEV) break;
            const int j = (i % 2 == 0) ? 0 : c[i];
            const int t = p[j];
            p[j] = p[i];
            p[i] = t;
            c[i]++;
            i = 0;
        }
        int match[NEV];
        double mac[NEV];
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_pkm_ok(pkm_track_link(N, NEV, f, a, f, b, NULL, 1e-5, match, mac, &ctx), &ctx);
        double s = 0.0;
        int used[NEV] = {0};
        for (int i = 0; i < NEV; i++) {
            assert_true(match[i] >= 0 && match[i] < NEV && !used[match[i]]);
            used[match[i]] = 1;
            assert_close(mac[i], m[i][match[i]], 1e-12, 1e-15);
            s += mac[i];
        }
        assert_close(s, best, 1e-12, 0);
    }
}

/* A repeated pair comes back as an arbitrary rotation of its subspace: as single vectors the MACs
 * are cos^2 and sin^2 of the angle; as a subspace they are 1, and the pair keeps its ranks. */
static void test_rotated_pair(void **state)
{
    (void)state;
    enum { N = 10, NEV = 4 };
    double a[N * NEV], b[N * NEV];
    random_orthonormal(N, NEV, 7, a);
    memcpy(b, a, sizeof(a));
    const double t = 0.6; /* rad */
    for (int r = 0; r < N; r++) {
        b[1 * N + r] = cos(t) * a[1 * N + r] + sin(t) * a[2 * N + r];
        b[2 * N + r] = -sin(t) * a[1 * N + r] + cos(t) * a[2 * N + r];
    }
    const double fa[NEV] = {3.0, 5.0, 5.0 * (1 + 1e-13), 8.0};
    const double fb[NEV] = {3.0, 5.0 * (1 - 1e-13), 5.0, 8.0};
    int match[NEV];
    double mac[NEV];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_track_link(N, NEV, fa, a, fb, b, NULL, 1e-6, match, mac, &ctx), &ctx);
    for (int i = 0; i < NEV; i++) {
        assert_int_equal(match[i], i);
        assert_close(mac[i], 1.0, 1e-12, 0);
    }
    /* Without clusters the rotated pair is two poor single-vector links. */
    assert_pkm_ok(pkm_track_link(N, NEV, fa, a, fb, b, NULL, 0.0, match, mac, &ctx), &ctx);
    assert_int_equal(match[1], 1);
    assert_close(mac[1], cos(t) * cos(t), 1e-12, 0);

    /* A pair that splits at b (distinct frequencies, vectors inside the pair's plane): each
     * single mode of b lies in a's subspace, MAC 1, ranks kept. */
    const double fs[NEV] = {3.0, 4.9, 5.1, 8.0};
    assert_pkm_ok(pkm_track_link(N, NEV, fa, a, fs, b, NULL, 1e-6, match, mac, &ctx), &ctx);
    for (int i = 0; i < NEV; i++) {
        assert_int_equal(match[i], i);
        assert_close(mac[i], 1.0, 1e-12, 0);
    }
    /* Partly in the pair's plane: b1 and b3 are half in span(a1, a2), half along a3. The pair
     * takes b2 (MAC 1) and one of b1, b3; a3 the other (MAC 1/2 each); ties keep the ranks. */
    for (int r = 0; r < N; r++) {
        b[1 * N + r] = (a[1 * N + r] + a[3 * N + r]) / sqrt(2.0);
        b[2 * N + r] = a[2 * N + r];
        b[3 * N + r] = (a[1 * N + r] - a[3 * N + r]) / sqrt(2.0);
    }
    const double fh[NEV] = {3.0, 4.9, 5.1, 5.3};
    assert_pkm_ok(pkm_track_link(N, NEV, fa, a, fh, b, NULL, 1e-6, match, mac, &ctx), &ctx);
    const double want[NEV] = {1.0, 0.5, 1.0, 0.5};
    for (int i = 0; i < NEV; i++) {
        assert_int_equal(match[i], i);
        assert_close(mac[i], want[i], 1e-12, 1e-14);
    }
}

/* M-weighted MAC: with M = diag(d), (a^T M b)^2 / (a^T M a b^T M b), written out here. */
static void test_mass_weighted(void **state)
{
    (void)state;
    enum { N = 6, NEV = 2 };
    double K[N * N] = {0}, M[N * N] = {0};
    const double d[N] = {1.0, 4.0, 0.25, 2.0, 9.0, 1.5};
    for (int i = 0; i < N; i++) {
        K[i * N + i] = 1.0;
        M[i * N + i] = d[i];
    }
    pkm_pencil *p = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_pencil_from_dense(N, K, M, &p, &ctx), &ctx);
    const double a[N * NEV] = {1, 2, 0, 1, 0, 3, 0, 1, 1, 0, 2, 1};
    const double b[N * NEV] = {1, 1, 1, 1, 0, 2, 0, 1, 2, 0, 1, 1};
    const double f[NEV] = {1.0, 2.0};
    int match[NEV];
    double mac[NEV];
    assert_pkm_ok(pkm_track_link(N, NEV, f, a, f, b, p, 1e-6, match, mac, &ctx), &ctx);
    for (int i = 0; i < NEV; i++) {
        const double *x = a + i * N, *y = b + match[i] * N;
        double xy = 0, xx = 0, yy = 0;
        for (int r = 0; r < N; r++) {
            xy += x[r] * d[r] * y[r];
            xx += x[r] * d[r] * x[r];
            yy += y[r] * d[r] * y[r];
        }
        assert_close(mac[i], xy * xy / (xx * yy), 1e-12, 0);
    }
    pkm_pencil_destroy(&p);
}

static void test_link_errors(void **state)
{
    (void)state;
    double a[4] = {1, 0, 0, 1}, z[4] = {1, 0, 0, 0};
    const double f[2] = {1, 2};
    int match[2];
    double mac[2];
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_track_link(2, 2, f, a, f, z, NULL, 1e-6, match, mac, &ctx),
                     PKM_ERR_INVALID);
    assert_non_null(strstr(ctx.msg, "mode 2 of pose b"));
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_track_link(2, 3, f, a, f, a, NULL, 1e-6, match, mac, &ctx),
                     PKM_ERR_INVALID);
}

/* A synthetic map: three physical modes e0, e1, e2 (unit vectors) whose frequencies cross over
 * the grid, ranked by frequency at each point, with a column of unreachable points that cuts the
 * grid in two. */
enum { SX = 5, SY = 7, SNEV = 3, SN = 4 };

static double branch(int m, int i, int j)
{
    switch (m) {
    case 0:
        return 10.0 + i + 0.5 * j; /* rises across both axes */
    case 1:
        return 16.0 - 0.8 * j; /* falls along y */
    default:
        return 30.0 - i;
    }
}

static void make_synthetic(pkm_map *m, int cut)
{
    pkm_map_init(m);
    snprintf(m->case_name, sizeof(m->case_name), "synthetic");
    m->npose = 2;
    snprintf(m->pose_names[0], PKM_MAP_NAME_LEN, "x");
    snprintf(m->pose_names[1], PKM_MAP_NAME_LEN, "y");
    m->naxes = 2;
    m->axes[0] = (pkm_map_axis){"x", "m", 0, SX, 0.0, 1.0};
    m->axes[1] = (pkm_map_axis){"y", "m", 1, SY, 0.0, 1.0};
    m->nev = SNEV;
    m->ncoord = SN;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_alloc(m, &ctx), &ctx);
    assert_pkm_ok(pkm_map_alloc_modes(m, &ctx), &ctx);
    for (int i = 0; i < SX; i++)
        for (int j = 0; j < SY; j++) {
            const int64_t p = i * SY + j;
            if (cut && j == 3) {
                m->status[p] = PKM_POSE_UNREACHABLE;
                continue;
            }
            m->status[p] = PKM_POSE_OK;
            /* rank the branches */
            int order[SNEV] = {0, 1, 2};
            for (int a = 0; a < SNEV; a++)
                for (int b = a + 1; b < SNEV; b++)
                    if (branch(order[b], i, j) < branch(order[a], i, j)) {
                        const int t = order[a];
                        order[a] = order[b];
                        order[b] = t;
                    }
            for (int k = 0; k < SNEV; k++) {
                m->freq_hz[p * SNEV + k] = branch(order[k], i, j);
                double *v = m->modes + ((size_t)p * SNEV + (size_t)k) * SN;
                for (int r = 0; r < SN; r++)
                    v[r] = (r == order[k]) ? 1.0 : 0.02 * sin(p + 3.0 * k + r); /* not exact */
            }
        }
}

/* The physical mode (branch) at rank k of point p, from the synthetic shapes. */
static int branch_at(const pkm_map *m, int64_t p, int k)
{
    const double *v = m->modes + ((size_t)p * SNEV + (size_t)k) * SN;
    int best = 0;
    for (int r = 1; r < SN; r++)
        if (fabs(v[r]) > fabs(v[best])) best = r;
    return best;
}

static void assert_permutations(const pkm_map *m)
{
    for (int64_t p = 0; p < m->npoints; p++) {
        int seen[64] = {0};
        for (int k = 0; k < m->nev; k++) {
            const int id = m->tracked[p * m->nev + k];
            if (m->status[p] != PKM_POSE_OK) {
                assert_int_equal(id, -1);
                continue;
            }
            assert_true(id >= 0 && id < m->nev && !seen[id]);
            seen[id] = 1;
        }
    }
}

static void test_map_tracking(void **state)
{
    (void)state;
    pkm_map m;
    make_synthetic(&m, 0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_track(&m, &ctx), &ctx);
    assert_int_equal(m.tracking, PKM_TRACK_MAC);
    assert_permutations(&m);
    /* One id per branch over the whole grid, though the ranks change. */
    int id_of[SN] = {-1, -1, -1, -1}, rank_changes = 0, roots = 0;
    for (int64_t p = 0; p < m.npoints; p++) {
        roots += m.tracking_parent[p] < 0;
        for (int k = 0; k < SNEV; k++) {
            const int b = branch_at(&m, p, k), id = m.tracked[p * SNEV + k];
            if (id_of[b] < 0) id_of[b] = id;
            assert_int_equal(id, id_of[b]);
            rank_changes += (b != branch_at(&m, 0, k));
            assert_true(m.tracking_mac[p * SNEV + k] > 0.99 || m.tracking_parent[p] < 0);
        }
        /* the parent is a grid neighbour */
        const int64_t q = m.tracking_parent[p];
        if (q >= 0) {
            const int64_t di = llabs(q / SY - p / SY), dj = llabs(q % SY - p % SY);
            assert_int_equal(di + dj, 1);
        }
    }
    assert_true(rank_changes > 0);
    assert_int_equal(roots, 1);
    /* The root is the point nearest the centre of the grid, where ids are the ranks. */
    const int64_t centre = (SX / 2) * SY + SY / 2;
    assert_int_equal(m.tracking_parent[centre], -1);
    for (int k = 0; k < SNEV; k++)
        assert_int_equal(m.tracked[centre * SNEV + k], k);
    pkm_map_free(&m);
}

/* The links do not depend on the memory the prepared modes may take: room for 2 to 9 points'
 * modes (a ring of 1 to 8 slots and its spare; the grid's largest stride is SY = 7, so 7 slots
 * put a point and its neighbour along x in one slot, as 1 does every link) gives the links of
 * the full ring, bit for bit. */
static void test_map_link_ring(void **state)
{
    (void)state;
    pkm_map m;
    make_synthetic(&m, 0);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_link(&m, 0, PKM_MAP_RING_BYTES, &ctx), &ctx);
    const size_t nl = (size_t)m.npoints * (size_t)m.naxes * SNEV;
    int *match = malloc(sizeof(int) * nl);
    double *mac = malloc(sizeof(double) * nl);
    assert_non_null(match);
    assert_non_null(mac);
    memcpy(match, m.link_match, sizeof(int) * nl);
    memcpy(mac, m.link_mac, sizeof(double) * nl);
    int linked = 0;
    for (size_t k = 0; k < nl; k++)
        linked += match[k] >= 0 && mac[k] < 1.0; /* the shapes are not exact: MACs below 1 */
    assert_int_equal(linked, ((SX - 1) * SY + SX * (SY - 1)) * SNEV);
    for (int slots = 2; slots <= SY + 2; slots++) {
        pkm_map_free_links(&m);
        assert_pkm_ok(pkm_map_link(&m, 0, (size_t)slots * SNEV * SN * sizeof(double), &ctx), &ctx);
        for (size_t k = 0; k < nl; k++) {
            assert_int_equal(m.link_match[k], match[k]);
            assert_true(m.link_mac[k] == mac[k] || (isnan(m.link_mac[k]) && isnan(mac[k])));
        }
    }
    free(match);
    free(mac);
    pkm_map_free(&m);
}

/* Unreachable points break the links: the other side starts again from its ranks. */
static void test_map_tracking_components(void **state)
{
    (void)state;
    pkm_map m;
    make_synthetic(&m, 1);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_pkm_ok(pkm_map_track(&m, &ctx), &ctx);
    assert_permutations(&m);
    int roots = 0;
    for (int64_t p = 0; p < m.npoints; p++) {
        if (m.status[p] != PKM_POSE_OK) {
            assert_int_equal(m.tracking_parent[p], -1);
            assert_true(isnan(m.tracking_mac[p * SNEV]));
            continue;
        }
        if (m.tracking_parent[p] >= 0) {
            /* never across the cut */
            assert_true((p % SY < 3) == (m.tracking_parent[p] % SY < 3));
            continue;
        }
        roots++;
        for (int k = 0; k < SNEV; k++)
            assert_int_equal(m.tracked[p * SNEV + k], k);
    }
    assert_int_equal(roots, 2);
    /* Without mode vectors: ranks, and a note saying why. */
    pkm_map_free_modes(&m);
    assert_pkm_ok(pkm_map_track(&m, &ctx), &ctx);
    assert_int_equal(m.tracking, PKM_TRACK_RANK);
    assert_true(strlen(m.tracking_note) > 0);
    for (int64_t p = 0; p < m.npoints; p++)
        for (int k = 0; k < SNEV; k++)
            assert_int_equal(m.tracked[p * SNEV + k], m.status[p] == PKM_POSE_OK ? k : -1);
    pkm_map_free(&m);
}

/* NaVARo at theta = 0, y = 0, along x near the edge of the workspace: a falling branch crosses
 * three flat ones between 120 and 130 Hz (ranks 5 to 8). Followed by id, each frequency is a
 * smooth function of x; followed by rank, the curves have kinks where branches cross. */
static void test_navaro_crossing(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("navaro");
    assert_non_null(c);
    enum { NP = 25, NEVN = 10 };
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *par = NULL;
    assert_pkm_ok(pkm_case_params_create(c, &par, &ctx), &ctx);
    pkm_map m;
    pkm_map_init(&m);
    snprintf(m.case_name, sizeof(m.case_name), "navaro");
    m.npose = 3;
    for (int k = 0; k < 3; k++) {
        snprintf(m.pose_names[k], PKM_MAP_NAME_LEN, "%s", c->pose_names[k]);
        m.base_pose[k] = 0.0;
    }
    m.naxes = 1;
    m.axes[0] = (pkm_map_axis){"x", "m", 0, NP, -0.114, -0.102};
    m.nev = m.opts.nev = NEVN;
    assert_pkm_ok(pkm_map_alloc(&m, &ctx), &ctx);
    pkm_sweep_opts so = pkm_sweep_opts_default();
    assert_pkm_ok(pkm_map_sweep(c, par, &m, &so, &ctx), &ctx);
    assert_int_equal(m.tracking, PKM_TRACK_MAC);
    assert_non_null(m.modes);
    assert_permutations(&m);
    double f[NP][NEVN];
    for (int p = 0; p < NP; p++) {
        assert_int_equal(m.status[p], PKM_POSE_OK);
        for (int k = 0; k < NEVN; k++) {
            f[p][m.tracked[p * NEVN + k]] = m.freq_hz[p * NEVN + k];
            assert_true(m.tracking_parent[p] < 0 || m.tracking_mac[p * NEVN + k] > 0.99);
        }
    }
    double kink_tracked = 0.0, kink_rank = 0.0;
    for (int p = 1; p + 1 < NP; p++)
        for (int k = 0; k < NEVN; k++) {
            const double *r = m.freq_hz;
            kink_tracked = fmax(kink_tracked, fabs(f[p + 1][k] - 2 * f[p][k] + f[p - 1][k]));
            kink_rank = fmax(kink_rank, fabs(r[(p + 1) * NEVN + k] - 2 * r[p * NEVN + k] +
                                             r[(p - 1) * NEVN + k]));
        }
    /* Steps of 0.5 mm: the second difference of the falling branch is 0.12 Hz at most (it bends
     * most near the edge of the workspace), a crossing makes a kink of 1.1 Hz in the rank
     * curves. */
    assert_true(kink_tracked < 0.25);
    assert_true(kink_rank > 0.8);
    pkm_map_free(&m);
    pkm_case_params_destroy(&par);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clusters),
        cmocka_unit_test(test_crossing),
        cmocka_unit_test(test_assignment_optimal),
        cmocka_unit_test(test_rotated_pair),
        cmocka_unit_test(test_mass_weighted),
        cmocka_unit_test(test_link_errors),
        cmocka_unit_test(test_map_tracking),
        cmocka_unit_test(test_map_link_ring),
        cmocka_unit_test(test_map_tracking_components),
        cmocka_unit_test(test_navaro_crossing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
