/* studies/track.c: linking modes across neighbouring poses (pkm/track.h) and over a map's grid.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "studies/studies_impl.h"
#include "pkm/map.h"
#include "pkm/track.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

pkm_track_opts pkm_track_opts_default(void)
{
    return (pkm_track_opts){.mac_threshold = 0.8, .cluster_tol = 1e-5};
}

void pkm_track_clusters(int nev, const double *freq, double cluster_tol, int *first)
{
    for (int k = 0; k < nev; k++) {
        const int joined = k > 0 && freq[k] - freq[k - 1] <= cluster_tol * fabs(freq[k]);
        first[k] = joined ? first[k - 1] : k;
    }
}

/* Size of the cluster that starts at rank s. */
static int cluster_size(int nev, const int *first, int s)
{
    int e = s + 1;
    while (e < nev && first[e] == s)
        e++;
    return e - s;
}

static double dot(int64_t n, const double *x, const double *y)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* W-orthonormalise the columns of q (n x nev) within each cluster by modified Gram-Schmidt,
 * applied twice ("twice is enough", Giraud et al. 2005) since the modes of a cluster at another
 * pose need not be W-orthogonal. wq receives W q (wq == q when weight is NULL). */
static pkm_status orthonormalise(int64_t n, int nev, const int *first, const pkm_pencil *weight,
                                 double *q, double *wq, const char *pose, pkm_ctx *ctx)
{
    for (int k = 0; k < nev; k++) {
        double *x = q + (size_t)k * (size_t)n, *wx = wq + (size_t)k * (size_t)n;
        for (int pass = 0; pass < 2; pass++)
            for (int j = first[k]; j < k; j++) {
                const double r = dot(n, wq + (size_t)j * (size_t)n, x);
                const double *y = q + (size_t)j * (size_t)n;
                for (int64_t i = 0; i < n; i++)
                    x[i] -= r * y[i];
            }
        if (weight != NULL) pkm_pencil_matvec(weight, 'M', x, wx);
        const double nrm2 = dot(n, x, wx);
        if (!(nrm2 > 0.0) || !isfinite(nrm2))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "track: mode %d of pose %s has a zero or non-finite norm "
                            "(within its cluster)",
                            k + 1, pose);
        const double s = 1.0 / sqrt(nrm2);
        for (int64_t i = 0; i < n; i++)
            x[i] *= s;
        if (weight != NULL)
            for (int64_t i = 0; i < n; i++)
                wx[i] *= s;
    }
    return PKM_OK;
}

/* Minimum-cost assignment of an n x n cost matrix (row-major): row i gets column col[i].
 * Shortest augmenting paths with row and column potentials (Kuhn 1955, Munkres 1957; the O(n^3)
 * form of Jonker and Volgenant 1987), 1-based internally with column 0 as the path's root.
 * dwork holds 3 (n + 1) doubles, iwork 3 (n + 1) ints. */
static void assign_min_cost(int n, const double *cost, int *col, double *dwork, int *iwork)
{
    double *u = dwork, *v = u + n + 1, *minv = v + n + 1;
    int *rowof = iwork, *way = rowof + n + 1, *used = way + n + 1;
    for (int j = 0; j <= n; j++) {
        u[j] = v[j] = 0.0;
        rowof[j] = way[j] = 0;
    }
    for (int i = 1; i <= n; i++) {
        rowof[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INFINITY;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            const int i0 = rowof[j0];
            double delta = INFINITY;
            int j1 = 0;
            for (int j = 1; j <= n; j++) {
                if (used[j]) continue;
                const double cur =
                    cost[(size_t)(i0 - 1) * (size_t)n + (size_t)(j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= n; j++) {
                if (used[j]) {
                    u[rowof[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (rowof[j0] != 0);
        do {
            const int j1 = way[j0];
            rowof[j0] = rowof[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    for (int j = 1; j <= n; j++)
        col[rowof[j] - 1] = j - 1;
}

/* A pose's modes made ready for its links: copied into q, their clusters into first, and
 * W-orthonormalised within the clusters (wq: W q, or q itself when weight is NULL). */
static pkm_status prepare(int64_t n, int nev, const double *freq, const double *vec,
                          const pkm_pencil *weight, double cluster_tol, int *first, double *q,
                          double *wq, const char *pose, pkm_ctx *ctx)
{
    memcpy(q, vec, sizeof(double) * (size_t)n * (size_t)nev);
    pkm_track_clusters(nev, freq, cluster_tol, first);
    return orthonormalise(n, nev, first, weight, q, wq, pose, ctx);
}

/* The link of two prepared poses a (fa, wqa) and b (fb, qb): the cluster MACs, their minimum-cost
 * pairing into match and its MACs into mac. sim, cost: nev^2 each; hwork, hiwork: 3 (nev + 1). */
static void pair(int64_t n, int nev, const int *fa, const double *wqa, const int *fb,
                 const double *qb, double *sim, double *cost, double *hwork, int *hiwork,
                 int *match, double *mac)
{
    /* sim[i][j] = (qa_i^T W qb_j)^2, then summed over each pair of clusters and spread over
     * their members: ||Qg^T W Qh||_F^2 / min(p, q). */
    for (int i = 0; i < nev; i += 2) /* two modes of a against four of b at a time */
        for (int j0 = 0; j0 < nev; j0 += 4) {
            double c[2][4];
            const int m = nev - j0 < 4 ? nev - j0 : 4, rows = nev - i < 2 ? 1 : 2;
            const double *a0 = wqa + (size_t)i * (size_t)n, *b = qb + (size_t)j0 * (size_t)n;
            if (rows == 2)
                pkm_dots4x2(n, a0, a0 + n, b, (size_t)n, m, c[0], c[1]);
            else
                pkm_dots4(n, a0, b, (size_t)n, m, c[0]);
            for (int r = 0; r < rows; r++)
                for (int j = 0; j < m; j++)
                    sim[(size_t)(i + r) * (size_t)nev + (size_t)(j0 + j)] = c[r][j] * c[r][j];
        }
    for (int i = 0; i < nev; i++) {
        if (fa[i] != i) continue;
        const int p = cluster_size(nev, fa, i);
        for (int j = 0; j < nev; j++) {
            if (fb[j] != j) continue;
            const int q = cluster_size(nev, fb, j);
            double s = 0.0;
            for (int r = i; r < i + p; r++)
                for (int c = j; c < j + q; c++)
                    s += sim[(size_t)r * (size_t)nev + (size_t)c];
            s = fmin(1.0, s / (p < q ? p : q));
            /* Ties (within a cluster, or equal MACs) go to the pairing nearest in rank; the
             * penalty, at most 1e-12 nev per mode, only decides between MACs equal to that
             * precision. */
            for (int r = i; r < i + p; r++)
                for (int c = j; c < j + q; c++) {
                    sim[(size_t)r * (size_t)nev + (size_t)c] = s;
                    cost[(size_t)r * (size_t)nev + (size_t)c] = 1.0 - s + 1e-12 * abs(r - c);
                }
        }
    }
    assign_min_cost(nev, cost, match, hwork, hiwork);
    for (int i = 0; i < nev; i++)
        mac[i] = sim[(size_t)i * (size_t)nev + (size_t)match[i]];
}

/* The arguments of a link: modes of order n, nev of them, a weight of that order if any. */
static pkm_status check_link(int64_t n, int nev, const pkm_pencil *weight, double cluster_tol,
                             pkm_ctx *ctx)
{
    if (n < 1 || nev < 1 || nev > n || !(cluster_tol >= 0.0) || (weight && weight->n != n))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "track: n = %lld, nev = %d, cluster_tol = %g, weight of order %lld",
                        (long long)n, nev, cluster_tol, weight ? (long long)weight->n : 0LL);
    return PKM_OK;
}

pkm_status pkm_track_link(int64_t n, int nev, const double *freq_a, const double *vec_a,
                          const double *freq_b, const double *vec_b, const pkm_pencil *weight,
                          double cluster_tol, int *match, double *mac, pkm_ctx *ctx)
{
    const pkm_status rc = check_link(n, nev, weight, cluster_tol, ctx);
    if (rc != PKM_OK) return rc;
    const size_t nn = (size_t)n * (size_t)nev, mm = (size_t)nev * (size_t)nev;
    const size_t nvec = weight != NULL ? 4 : 2;
    double *dwork = malloc(sizeof(double) * (nvec * nn + 2 * mm + 3 * ((size_t)nev + 1)));
    int *iwork = malloc(sizeof(int) * (2 * (size_t)nev + 3 * ((size_t)nev + 1)));
    if (dwork == NULL || iwork == NULL) {
        free(dwork);
        free(iwork);
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "track: cannot allocate for %d modes of order %lld",
                        nev, (long long)n);
    }
    double *qa = dwork, *qb = qa + nn, *wqa = qa, *wqb = qb;
    if (weight != NULL) {
        wqa = qb + nn;
        wqb = wqa + nn;
    }
    double *sim = dwork + nvec * nn, *cost = sim + mm, *hwork = cost + mm;
    int *fa = iwork, *fb = fa + nev, *hiwork = fb + nev;
    pkm_status st = prepare(n, nev, freq_a, vec_a, weight, cluster_tol, fa, qa, wqa, "a", ctx);
    if (st == PKM_OK)
        st = prepare(n, nev, freq_b, vec_b, weight, cluster_tol, fb, qb, wqb, "b", ctx);
    if (st == PKM_OK) pair(n, nev, fa, wqa, fb, qb, sim, cost, hwork, hiwork, match, mac);
    free(dwork);
    free(iwork);
    return st;
}

void pkm_map_track_ranks(pkm_map *map)
{
    for (int64_t p = 0; p < map->npoints; p++) {
        map->tracking_parent[p] = -1;
        for (int k = 0; k < map->nev; k++) {
            map->tracked[p * map->nev + k] = (map->status[p] == PKM_POSE_OK) ? k : -1;
            map->tracking_mac[p * map->nev + k] = NAN;
        }
    }
    map->tracking = PKM_TRACK_RANK;
}

/* The strides of the row-major grid: point p is at index (p / stride[a]) % count along axis a. */
static void grid_strides(const pkm_map *map, int64_t *stride)
{
    int64_t step = 1;
    for (int a = map->naxes - 1; a >= 0; a--) {
        stride[a] = step;
        step *= map->axes[a].count;
    }
}

/* The neighbour of p one step along axis a in direction d (+1 or -1), or -1 at the grid's edge. */
static int64_t neighbour(const pkm_map *map, const int64_t *stride, int64_t p, int a, int d)
{
    const int64_t idx = (p / stride[a]) % map->axes[a].count;
    if (idx + d < 0 || idx + d >= map->axes[a].count) return -1;
    return p + d * stride[a];
}

/* Where the link of p and its neighbour along axis a is stored: at the lower of the two. */
static size_t link_at(const pkm_map *map, int64_t p, int64_t q, int a)
{
    return ((size_t)(p < q ? p : q) * (size_t)map->naxes + (size_t)a) * (size_t)map->nev;
}

static int has_vectors(const pkm_map *map, int64_t p)
{
    return map->modes != NULL &&
           !isnan(map->modes[(size_t)p * (size_t)map->nev * (size_t)map->ncoord]);
}

/* An OK point whose vectors a link still needs: a neighbour pending, or OK and not linked. */
static int needs_vectors(const pkm_map *map, const int64_t *stride, int64_t p)
{
    if (map->status[p] != PKM_POSE_OK) return 0;
    for (int a = 0; a < map->naxes; a++)
        for (int d = -1; d <= 1; d += 2) {
            const int64_t q = neighbour(map, stride, p, a, d);
            if (q < 0) continue;
            if (map->status[q] == PKM_POSE_PENDING) return 1;
            if (map->status[q] == PKM_POSE_OK &&
                (map->link_match == NULL || map->link_match[link_at(map, p, q, a)] < 0))
                return 1;
        }
    return 0;
}

int64_t pkm_map_vectors_needed(const pkm_map *map)
{
    if (map->status == NULL || map->naxes < 1) return 0;
    int64_t stride[PKM_MAP_MAX_AXES], n = 0;
    grid_strides(map, stride);
    for (int64_t p = 0; p < map->npoints; p++)
        n += needs_vectors(map, stride, p);
    return n;
}

/* The prepared modes of the points a map's links need, in a ring of slots by point index: a
 * point is prepared once for its links as a and as b (it served four links, prepared four times),
 * the same values each time. Point r is first needed at the link of r - (largest stride) and
 * last at its own, so a ring of that many + 1 slots keeps every point until its last use; a
 * slot holding another point is prepared again (a smaller ring is only slower). A spare slot
 * after them takes b when its slot is a's (a ring smaller than the stride between them). */
typedef struct link_ring {
    int64_t slots; /* keyed slots; slot `slots` is the spare */
    int64_t *key;  /* the point a keyed slot holds, -1 */
    int *first;    /* nev per slot */
    double *q;     /* n nev per slot */
} link_ring;

/* Point p's prepared modes, in its slot unless that is `taken` (then in the spare, prepared
 * again at every use); *slot: where they are. */
static pkm_status ring_get(const pkm_map *map, link_ring *ring, int64_t p, int64_t taken,
                           const char *pose, int64_t *slot, const int **first, const double **q,
                           pkm_ctx *ctx)
{
    const size_t per_point = (size_t)map->nev * (size_t)map->ncoord;
    int64_t s = p % ring->slots;
    if (s == taken) s = ring->slots;
    *slot = s;
    *first = ring->first + (size_t)s * (size_t)map->nev;
    *q = ring->q + (size_t)s * per_point;
    if (s < ring->slots && ring->key[s] == p) return PKM_OK;
    if (s < ring->slots) ring->key[s] = -1;
    const pkm_status st = prepare(
        map->ncoord, map->nev, map->freq_hz + p * map->nev, map->modes + (size_t)p * per_point,
        NULL, map->track.cluster_tol, ring->first + (size_t)s * (size_t)map->nev,
        ring->q + (size_t)s * per_point, ring->q + (size_t)s * per_point, pose, ctx);
    if (st == PKM_OK && s < ring->slots) ring->key[s] = p;
    return st;
}

pkm_status pkm_map_link(pkm_map *map, int drop, size_t ring_bytes, pkm_ctx *ctx)
{
    if (map->modes == NULL || map->status == NULL || map->naxes < 1) return PKM_OK;
    if (map->link_match == NULL) {
        const pkm_status st = pkm_map_alloc_links(map, ctx);
        if (st != PKM_OK) return st;
    }
    int64_t stride[PKM_MAP_MAX_AXES];
    grid_strides(map, stride);
    const size_t per_point = (size_t)map->nev * (size_t)map->ncoord;
    const size_t nev = (size_t)map->nev, mm = nev * nev;
    /* the ring: the largest stride + 1 slots and the spare, up to ring_bytes of vectors (at
     * least one slot and the spare) */
    link_ring ring = {stride[0] + 1, NULL, NULL, NULL};
    const int64_t cap = (int64_t)(ring_bytes / (8 * (per_point > 0 ? per_point : 1))) - 1;
    ring.slots = ring.slots < cap ? ring.slots : (cap > 1 ? cap : 1);
    ring.key = malloc(sizeof(int64_t) * (size_t)ring.slots);
    ring.first = malloc(sizeof(int) * (size_t)(ring.slots + 1) * nev);
    ring.q = malloc(sizeof(double) * (size_t)(ring.slots + 1) * per_point);
    double *dwork = malloc(sizeof(double) * (2 * mm + 3 * (nev + 1)));
    int *hiwork = malloc(sizeof(int) * 3 * (nev + 1));
    pkm_status st = PKM_OK;
    if (ring.key == NULL || ring.first == NULL || ring.q == NULL || dwork == NULL || hiwork == NULL)
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "track: cannot allocate for %d modes of order %lld",
                      map->nev, (long long)map->ncoord);
    for (int64_t k = 0; st == PKM_OK && k < ring.slots; k++)
        ring.key[k] = -1;
    int checked = 0;
    for (int64_t p = 0; st == PKM_OK && p < map->npoints; p++) {
        if (map->status[p] != PKM_POSE_OK || !has_vectors(map, p)) continue;
        for (int a = 0; a < map->naxes && st == PKM_OK; a++) {
            const int64_t q = neighbour(map, stride, p, a, 1);
            if (q < 0 || map->status[q] != PKM_POSE_OK || !has_vectors(map, q)) continue;
            const size_t at = link_at(map, p, q, a);
            if (map->link_match[at] >= 0) continue;
            /* checked at the first link, as pkm_track_link checks each of its own */
            if (!checked && (st = check_link(map->ncoord, map->nev, NULL, map->track.cluster_tol,
                                             ctx)) != PKM_OK)
                break;
            checked = 1;
            const int *fa, *fb;
            const double *qa, *qb;
            int64_t sa, sb;
            st = ring_get(map, &ring, p, -1, "a", &sa, &fa, &qa, ctx);
            if (st == PKM_OK) st = ring_get(map, &ring, q, sa, "b", &sb, &fb, &qb, ctx);
            if (st == PKM_OK)
                pair(map->ncoord, map->nev, fa, qa, fb, qb, dwork, dwork + mm, dwork + 2 * mm,
                     hiwork, map->link_match + at, map->link_mac + at);
        }
    }
    free(ring.key);
    free(ring.first);
    free(ring.q);
    free(dwork);
    free(hiwork);
    if (st != PKM_OK) return st;
    /* Every neighbour of a dropped point is computed and linked to it: nothing reads its vectors
     * again, so a checkpoint need not hold them. */
    for (int64_t p = 0; drop && !map->keep_modes && p < map->npoints; p++)
        if (map->status[p] == PKM_POSE_OK && has_vectors(map, p) && !needs_vectors(map, stride, p))
            for (size_t i = 0; i < per_point; i++)
                map->modes[(size_t)p * per_point + i] = NAN;
    return PKM_OK;
}

/* A candidate link from the labelled point `from` to the unlabelled point `to` along axis. */
typedef struct track_edge {
    double score; /* sum of the MACs of the link's pairs */
    int64_t from, to;
    int axis;
} track_edge;

/* Max-heap order: the better score first; equal scores by the lower indices, for a result that
 * does not depend on the order of computation. */
static int edge_before(const track_edge *a, const track_edge *b)
{
    if (a->score != b->score) return a->score > b->score;
    if (a->to != b->to) return a->to < b->to;
    return a->from < b->from;
}

static void heap_push(track_edge *h, int64_t *n, track_edge e)
{
    int64_t i = (*n)++;
    while (i > 0 && edge_before(&e, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static track_edge heap_pop(track_edge *h, int64_t *n)
{
    const track_edge top = h[0], last = h[--(*n)];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && edge_before(&h[c + 1], &h[c])) c++;
        if (!edge_before(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

typedef struct root_order {
    double dist;
    int64_t p;
} root_order;

static int root_cmp(const void *x, const void *y)
{
    const root_order *a = x, *b = y;
    if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
    return (a->p > b->p) - (a->p < b->p);
}

/* Working state of pkm_map_track. */
typedef struct track_state {
    pkm_map *map;
    int64_t stride[PKM_MAP_MAX_AXES];
    track_edge *heap;
    int64_t nheap;
    unsigned char *labelled;
} track_state;

/* Candidate links from the newly labelled point p to its unlabelled OK neighbours, scored by
 * the sum of their stored MACs (in rank order of the lower point: the same sum whichever end
 * is labelled first). */
static void push_neighbours(track_state *t, int64_t p)
{
    const pkm_map *map = t->map;
    for (int a = map->naxes - 1; a >= 0; a--)
        for (int d = -1; d <= 1; d += 2) {
            const int64_t q = neighbour(map, t->stride, p, a, d);
            if (q < 0 || t->labelled[q] || map->status[q] != PKM_POSE_OK) continue;
            const double *mac = map->link_mac + link_at(map, p, q, a);
            double score = 0.0;
            for (int k = 0; k < map->nev; k++)
                score += mac[k];
            heap_push(t->heap, &t->nheap, (track_edge){score, p, q, a});
        }
}

/* Label the connected set of OK points around root, best links first (Prim's algorithm on the
 * grid graph weighted by the links' summed MAC: a maximum spanning tree, so that the tree avoids
 * the weak links where it can). A link is stored from its lower point (mode i there is mode
 * match[i] of the upper one) and followed in either direction. */
static void label_from(track_state *t, int64_t root)
{
    pkm_map *map = t->map;
    const int nev = map->nev;
    t->labelled[root] = 1; /* its ids are the ranks (pkm_map_track_ranks) */
    t->nheap = 0;
    push_neighbours(t, root);
    while (t->nheap > 0) {
        const track_edge e = heap_pop(t->heap, &t->nheap);
        if (t->labelled[e.to]) continue;
        const size_t at = link_at(map, e.from, e.to, e.axis);
        const int *match = map->link_match + at;
        const double *mac = map->link_mac + at;
        for (int i = 0; i < nev; i++) {
            const int64_t to = e.to * nev + (e.from < e.to ? match[i] : i);
            map->tracked[to] = map->tracked[e.from * nev + (e.from < e.to ? i : match[i])];
            map->tracking_mac[to] = mac[i];
        }
        map->tracking_parent[e.to] = e.from;
        t->labelled[e.to] = 1;
        push_neighbours(t, e.to);
    }
}

/* 1 if every pair of neighbouring OK points is linked. */
static int all_linked(const pkm_map *map, const int64_t *stride)
{
    for (int64_t p = 0; p < map->npoints; p++) {
        if (map->status[p] != PKM_POSE_OK) continue;
        for (int a = 0; a < map->naxes; a++) {
            const int64_t q = neighbour(map, stride, p, a, 1);
            if (q >= 0 && map->status[q] == PKM_POSE_OK &&
                (map->link_match == NULL || map->link_match[link_at(map, p, q, a)] < 0))
                return 0;
        }
    }
    return 1;
}

pkm_status pkm_map_track(pkm_map *map, pkm_ctx *ctx)
{
    pkm_map_track_ranks(map);
    const int64_t np = map->npoints;
    if (np < 1 || map->nev < 1 || map->naxes < 1) return PKM_OK;
    track_state t = {.map = map};
    grid_strides(map, t.stride);
    pkm_status st = pkm_map_link(map, 0, PKM_MAP_RING_BYTES, ctx);
    if (st != PKM_OK || !all_linked(map, t.stride)) {
        if (st == PKM_OK && map->tracking_note[0] == '\0')
            snprintf(map->tracking_note, sizeof(map->tracking_note), "mode vectors not kept");
        pkm_map_free_links(map);
        return st;
    }
    size_t nok = 0;
    for (int64_t p = 0; p < np; p++)
        nok += map->status[p] == PKM_POSE_OK;
    /* Each OK point pushes at most one link per neighbour. */
    root_order *order = malloc(sizeof(*order) * (nok + 1));
    t.heap = malloc(sizeof(*t.heap) * (nok * 2 * (size_t)map->naxes + 1));
    t.labelled = calloc((size_t)np, 1);
    if (order == NULL || t.heap == NULL || t.labelled == NULL) {
        st = PKM_FAIL(ctx, PKM_ERR_NOMEM, "track: cannot allocate for %lld points", (long long)np);
        goto done;
    }
    /* Roots nearest the centre of the grid first: ids are the ranks there, and the first root
     * is rarely at the edge of the workspace, where modes change fastest. */
    int64_t n = 0;
    for (int64_t p = 0; p < np; p++) {
        if (map->status[p] != PKM_POSE_OK) continue;
        double d2 = 0.0;
        for (int a = 0; a < map->naxes; a++) {
            const double c = 0.5 * (map->axes[a].count - 1);
            const double x = (double)((p / t.stride[a]) % map->axes[a].count) - c;
            d2 += x * x / fmax(c * c, 1.0);
        }
        order[n++] = (root_order){d2, p};
    }
    qsort(order, (size_t)n, sizeof(*order), root_cmp);
    for (int64_t i = 0; i < n; i++)
        if (!t.labelled[order[i].p]) label_from(&t, order[i].p);
    map->tracking = PKM_TRACK_MAC;
    map->tracking_note[0] = '\0';
done:
    pkm_map_free_links(map);
    free(order);
    free(t.heap);
    free(t.labelled);
    return st;
}
