/* assembly/nodal.c: direct finite-element assembly with jointed nodes sharing dofs.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every node carries a displacement twist u = (translation, rotation) in global axes. The nodes
 * and the ground form a graph whose edges are joints (u_b = u_a + S d, d the joint's free
 * motions) and rigid-body attachments (u_t = Ad(x_t - x_o) u_o). A spanning forest expresses
 * every node through independent coordinates: 6 at the root of a component that does not reach
 * the ground, plus the free motions of each joint. Element matrices in global axes are then
 * projected: K = sum E_e^T K_e E_e. This is the reference the virtual-tree formulation is
 * checked against, and the one that scales to fine meshes.
 *
 * Quintic beams (Li et al. 2020, eqs. 1-7) add curvature coordinates, three per node and side, in
 * the element's local axes: two elements meeting at a node share them when they have the same
 * local frame (one straight segment) and no joint attaches there. At a kink the curvature is not
 * continuous, and a joint may apply a concentrated moment, which makes the curvature jump; the
 * two sides then keep their own coordinates, as at the ends. With end_curvature_zero the beam's
 * first and last node have none (Li et al. 2020, eq. 9: zero curvature and twist rate at the
 * spherical joints of a link); PKM_BEAM_QUINTIC_C0 has none anywhere (the printed lead-screw
 * element of eq. 15, in 3D: its table entry is the quintic's twist rows and columns). Each
 * element's dofs and kernels are its body's entry of pkm_beam_types (pkm/fem.h). */
#include "assembly/assembly_impl.h"
#include "core/core_impl.h"
#include "pkm/assembly.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A node's displacement as a sparse combination of reduced coordinates. */
typedef struct rep {
    int n;          /* terms */
    int64_t *c;     /* coordinate indices */
    double (*v)[6]; /* twist per unit coordinate */
} rep;

typedef struct edge {
    int a, b;  /* vertices (nnodes = ground) */
    int joint; /* joint index, or -1 for a rigid attachment */
} edge;

static pkm_status rep_alloc(rep *r, int n, pkm_ctx *ctx)
{
    r->n = n;
    r->c = malloc(sizeof(*r->c) * (size_t)(n > 0 ? n : 1));
    r->v = malloc(sizeof(*r->v) * (size_t)(n > 0 ? n : 1));
    if (r->c == NULL || r->v == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate dof map");
    return PKM_OK;
}

/* Fill E (rows r0..r0+5, ncol columns matching idx) from node i's block of P. */
static void rep_rows(const pkm_dofmap *P, int i, const int64_t *idx, int ncol, double *E, int r0)
{
    int n;
    const int64_t *c;
    const double(*v)[6];
    pkm_dofmap_node(P, i, &n, &c, &v);
    for (int t = 0; t < n; t++) {
        int col = 0;
        while (idx[col] != c[t])
            col++;
        for (int k = 0; k < 6; k++)
            E[(r0 + k) * ncol + col] += v[t][k];
    }
}

/* Distinct coordinates of the P blocks of nodes a and b (b < 0: none) into idx; their count. */
static int merge_idx(const pkm_dofmap *P, int a, int b, int64_t *idx)
{
    int n = 0;
    const int nodes[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        if (nodes[s] < 0) continue;
        int nt;
        const int64_t *c;
        const double(*v)[6];
        pkm_dofmap_node(P, nodes[s], &nt, &c, &v);
        for (int t = 0; t < nt; t++) {
            int seen = 0;
            for (int q = 0; q < n && !seen; q++)
                seen = (idx[q] == c[t]);
            if (!seen) idx[n++] = c[t];
        }
    }
    return n;
}

/* Frames of consecutive elements agree: they lie on one straight segment. */
static int same_frame(double A[3][3], double B[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (fabs(A[i][j] - B[i][j]) > PKM_ASM_SAME_FRAME_TOL) return 0;
    return 1;
}

/* Curvature coordinates per node of beam body b's element (its entry's dofs past the twist). */
static int curvatures_per_node(const pkm_body *b)
{
    return b->kind == PKM_BODY_BEAM ? pkm_beam_types[b->element].dofs_per_node - 6 : 0;
}

/* Number the curvature coordinates of the beams whose element has them (the quintic) from
 * *ncoord on: cc[2 e + s] is the first of those of element e at its node s + 1, or -1 (see the
 * top of the file). */
static pkm_status number_curvatures(const pkm_model *m, int64_t *cc, int64_t *ncoord, pkm_ctx *ctx)
{
    pkm_status rc = PKM_OK;
    const int nnodes = pkm_model_node_count(m);
    char *jointed = calloc((size_t)(nnodes > 0 ? nnodes : 1), 1);
    if (jointed == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the nodal dof map");
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        for (int s = 0; s < 2; s++)
            if (pkm_model_joint(m, j)->node[s] >= 0) jointed[pkm_model_joint(m, j)->node[s]] = 1;
    for (int e = 0; e < 2 * pkm_model_element_count(m); e++)
        cc[e] = -1;
    for (int bi = 0; bi < pkm_model_body_count(m) && rc == PKM_OK; bi++) {
        const pkm_body *b = pkm_model_body(m, bi);
        const int nk = curvatures_per_node(b);
        if (nk == 0) continue;
        const int first = b->first_elem, last = b->first_elem + b->nelem - 1;
        double prev[3][3];
        for (int e = first; e <= last && rc == PKM_OK; e++) {
            const pkm_elem *el = pkm_model_elem(m, e);
            double R[3][3], l;
            rc = pkm_fem_beam3d_frame(pkm_model_node(m, el->n1)->x, pkm_model_node(m, el->n2)->x,
                                      b->zref, R, &l, ctx);
            if (rc != PKM_OK) break;
            if (e == first) {
                if (!b->end_curvature_zero) cc[2 * e] = *ncoord, *ncoord += nk;
            } else if (!jointed[el->n1] && same_frame(prev, R)) {
                cc[2 * e] = cc[2 * e - 1];
            } else {
                cc[2 * e] = *ncoord, *ncoord += nk;
            }
            if (e < last || !b->end_curvature_zero) cc[2 * e + 1] = *ncoord, *ncoord += nk;
            memcpy(prev, R, sizeof(prev));
        }
    }
    free(jointed);
    return rc;
}

/* Beam element el, of its body's entry of pkm_beam_types (nd dofs per node: the node's twist,
 * then nd - 6 curvature coordinates in local axes): its local matrices onto the coordinates of
 * its nodes, the twists through the node blocks of P, the curvatures onto their own coordinates
 * cc[0..1] (absent ones held at zero). The element's matrices in global axes are D^T L D with D
 * rotating each twist triple (pkm_fem_rotate12, pkm_fem_quintic_rotate), so E^T (D^T L D) E =
 * (D E)^T L (D E): rotating the nrow x ncol projection (3 x 3 blocks times ncol columns) instead
 * of both matrices takes a third of the nodal assembly's instructions off (docs/performance.md).
 * A column of D E is zero exactly where the column of E is, so the congruence keeps the same
 * columns. */
static pkm_status add_element(const pkm_model *m, const pkm_elem *el, const pkm_dofmap *P,
                              const int64_t cc[2], int64_t *idx, double *E, pkm_trip *trip,
                              pkm_ctx *ctx)
{
    enum { MAXN = 2 * PKM_BEAM_MAX_NODE_DOFS };
    const pkm_body *b = pkm_model_body(m, el->body);
    const pkm_beam_type *type = &pkm_beam_types[b->element];
    const int nd = type->dofs_per_node, nrow = 2 * nd, nk = nd - 6;
    double R[3][3], l, K[MAXN * MAXN], M[MAXN * MAXN];
    pkm_status rc = pkm_fem_beam3d_frame(pkm_model_node(m, el->n1)->x, pkm_model_node(m, el->n2)->x,
                                         b->zref, R, &l, ctx);
    if (rc != PKM_OK) return rc;
    type->stiffness(&b->section, &b->material, l, K);
    type->mass(&b->section, &b->material, l, b->mass_flags, M);
    int ncol = merge_idx(P, el->n1, el->n2, idx), ccol[2];
    for (int s = 0; s < 2; s++) {
        ccol[s] = ncol;
        if (cc[s] < 0) continue;
        for (int k = 0; k < nk; k++)
            idx[ncol++] = cc[s] + k;
    }
    memset(E, 0, sizeof(*E) * (size_t)(nrow * ncol));
    rep_rows(P, el->n1, idx, ncol, E, 0);
    rep_rows(P, el->n2, idx, ncol, E, nd);
    for (int a = 0; a < 4; a++)
        for (int c = 0; c < ncol; c++) {
            double *e = E + ((a / 2) * nd + 3 * (a % 2)) * ncol + c, t[3];
            for (int i = 0; i < 3; i++)
                t[i] = R[i][0] * e[0] + R[i][1] * e[ncol] + R[i][2] * e[2 * ncol];
            for (int i = 0; i < 3; i++)
                e[i * ncol] = t[i];
        }
    for (int s = 0; s < 2; s++)
        if (cc[s] >= 0)
            for (int k = 0; k < nk; k++)
                E[(nd * s + 6 + k) * ncol + ccol[s] + k] = 1.0;
    return pkm_trip_add_congruence(trip, nrow, ncol, idx, E, K, M, ctx);
}

/* Every node's representation (reps, nnodes + 1 with the ground last) through a breadth-first
 * spanning forest of the node graph (edges: joints and rigid attachments), the ground's
 * component first; coordinates numbered from *nc on, each joint's free ones recorded in P. */
static pkm_status span_forest(const pkm_model *m, const edge *edges, int ne, rep *reps,
                              int *visited, int *queue, pkm_dofmap *P, int64_t *nc, pkm_ctx *ctx)
{
    const int nnodes = pkm_model_node_count(m), ground = nnodes;
    int *used = calloc((size_t)(ne > 0 ? ne : 1), sizeof(*used));
    if (used == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the nodal dof map");
    pkm_status rc = PKM_OK;
    /* Breadth-first over the node graph, the ground's component first. */
    int64_t ncoord = *nc;
    for (int r = -1; r < nnodes && rc == PKM_OK; r++) {
        const int root = (r < 0) ? ground : r;
        if (visited[root]) continue;
        if (root == ground) {
            rc = rep_alloc(&reps[root], 0, ctx);
        } else {
            rc = rep_alloc(&reps[root], 6, ctx);
            for (int k = 0; rc == PKM_OK && k < 6; k++) {
                reps[root].c[k] = ncoord++;
                memset(reps[root].v[k], 0, sizeof(reps[root].v[k]));
                reps[root].v[k][k] = 1.0;
            }
        }
        visited[root] = 1;
        int qh = 0, qt = 0;
        queue[qt++] = root;
        while (rc == PKM_OK && qh < qt) {
            int u = queue[qh++];
            for (int e = 0; e < ne && rc == PKM_OK; e++) {
                if (used[e] || (edges[e].a != u && edges[e].b != u)) continue;
                used[e] = 1;
                int w = (edges[e].a == u) ? edges[e].b : edges[e].a;
                double sign = (edges[e].a == u) ? 1.0 : -1.0;
                if (visited[w]) {
                    const char *what = edges[e].joint >= 0
                                           ? pkm_model_joint(m, edges[e].joint)->name
                                           : pkm_model_body(m, pkm_model_node(m, w)->body)->name;
                    rc = PKM_FAIL(ctx, PKM_ERR_MODEL,
                                  "nodal assembly: '%s' closes a loop of joints and rigid bodies "
                                  "without a flexible element in it (over-constrained)",
                                  what);
                    break;
                }
                double S[PKM_JOINT_MAX_FREE][6];
                int nf = 0;
                if (edges[e].joint >= 0)
                    nf = pkm_joint_free_twists(pkm_model_joint(m, edges[e].joint), S);
                const double *xu =
                    (u == ground) ? pkm_model_node(m, w)->x : pkm_model_node(m, u)->x;
                rc = rep_alloc(&reps[w], reps[u].n + nf, ctx);
                if (rc != PKM_OK) break;
                for (int t = 0; t < reps[u].n; t++) {
                    reps[w].c[t] = reps[u].c[t];
                    /* joint edges shift by nothing (coincident nodes), rigid edges move the
                     * reference point */
                    double shift[3];
                    pkm_vec3_sub(pkm_model_node(m, w)->x, xu, shift);
                    pkm_twist_transfer(reps[u].v[t], shift, reps[w].v[t]);
                }
                if (nf > 0) {
                    /* the relative motion d of u_b = u_a + S d, whichever side is reached first */
                    P->joint_first[edges[e].joint] = ncoord;
                    P->joint_nfree[edges[e].joint] = nf;
                }
                for (int f = 0; f < nf; f++) {
                    reps[w].c[reps[u].n + f] = ncoord++;
                    for (int k = 0; k < 6; k++)
                        reps[w].v[reps[u].n + f][k] = sign * S[f][k];
                }
                visited[w] = 1;
                queue[qt++] = w;
            }
        }
    }
    free(used);
    *nc = ncoord;
    return rc;
}

/* coef v into r's term of coordinate col (appended if r has none). */
static pkm_status rep_add(rep *r, int64_t col, const double v[6], double coef, pkm_ctx *ctx)
{
    int t = 0;
    while (t < r->n && r->c[t] != col)
        t++;
    if (t == r->n) {
        int64_t *c = realloc(r->c, sizeof(*c) * (size_t)(r->n + 1));
        if (c != NULL) r->c = c;
        double(*w)[6] = c != NULL ? realloc(r->v, sizeof(*w) * (size_t)(r->n + 1)) : NULL;
        if (w == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate dof map");
        r->v = w;
        r->c[t] = col;
        memset(r->v[t], 0, sizeof(r->v[t]));
        r->n++;
    }
    for (int k = 0; k < 6; k++)
        r->v[t][k] += coef * v[k];
    return PKM_OK;
}

/* Whether coordinate col is a joint's free motion (kept: pkm_dofmap_joint_coordinate numbers a
 * joint's motions consecutively, and its springs and rotor inertias act on them). */
static int joint_coordinate(const pkm_dofmap *P, int njoints, int64_t col)
{
    for (int j = 0; j < njoints; j++)
        if (P->joint_first[j] >= 0 && col >= P->joint_first[j] &&
            col < P->joint_first[j] + P->joint_nfree[j])
            return 1;
    return 0;
}

/* Point-on-plane constraint q eliminated from the twist coordinates (master-slave): with c the
 * row n^T u of the node's translation, c_t = n . v_t over its terms, the coordinate j of the
 * largest |c_j| that is not a joint's becomes x_j = -sum_{k != j} (c_k / c_j) x_k in every node
 * that uses it, and the coordinates after j move down by one. P Z stays a product of the same
 * congruences, so K and M are Z^T K Z, Z^T M Z: symmetric, and positive definite if the
 * constrained structure is. A node that no coordinate moves along n is already held: nothing
 * to eliminate. */
static pkm_status eliminate_plane(const pkm_model *m, const pkm_plane *q, rep *reps, int nv,
                                  pkm_dofmap *P, int64_t *ncoord, pkm_ctx *ctx)
{
    const rep *r = &reps[q->node];
    const int nt = r->n;
    int64_t cols[64];
    double c[64], cmax = 0.0, all = 0.0;
    int piv = -1;
    if (nt > 64) return PKM_FAIL(ctx, PKM_ERR_MODEL, "plane '%s': node of %d terms", q->name, nt);
    for (int t = 0; t < nt; t++) {
        cols[t] = r->c[t];
        c[t] = pkm_vec3_dot(q->normal, r->v[t]);
        all = fmax(all, fabs(c[t]));
        if (fabs(c[t]) > cmax && !joint_coordinate(P, pkm_model_joint_count(m), cols[t]))
            cmax = fabs(c[t]), piv = t;
    }
    if (!(all > 1e-12)) return PKM_OK;
    if (piv < 0 || cmax < 1e-6 * all)
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "plane '%s': only joint motions move node %d along the normal; put the "
                        "constraint on a node of a beam away from joints",
                        q->name, q->node);
    const int64_t j = cols[piv];
    for (int i = 0; i < nv; i++) {
        rep *w = &reps[i];
        int t = 0;
        while (t < w->n && w->c[t] != j)
            t++;
        if (t == w->n) continue;
        double s[6];
        memcpy(s, w->v[t], sizeof(s));
        w->n--; /* the slave's term out, the masters' in */
        memmove(w->c + t, w->c + t + 1, sizeof(*w->c) * (size_t)(w->n - t));
        memmove(w->v + t, w->v + t + 1, sizeof(*w->v) * (size_t)(w->n - t));
        for (int k = 0; k < nt; k++) {
            if (k == piv || c[k] == 0.0) continue;
            const pkm_status rc = rep_add(w, cols[k], s, -c[k] / c[piv], ctx);
            if (rc != PKM_OK) return rc;
        }
    }
    for (int i = 0; i < nv; i++)
        for (int t = 0; t < reps[i].n; t++)
            reps[i].c[t] -= reps[i].c[t] > j;
    for (int jj = 0; jj < pkm_model_joint_count(m); jj++)
        P->joint_first[jj] -= P->joint_first[jj] > j;
    (*ncoord)--;
    return PKM_OK;
}

/* P of the dof map: node i's representation is its row block. */
static pkm_status fill_dofmap(pkm_dofmap *map, const rep *reps, int nnodes, int64_t n, pkm_ctx *ctx)
{
    pkm_status rc = PKM_OK;
    for (int i = 0; i < nnodes && rc == PKM_OK; i++) {
        for (int t = 0; t < reps[i].n && rc == PKM_OK; t++)
            rc = pkm_dofmap_add_term(map, reps[i].c[t], reps[i].v[t], ctx);
        map->node_ptr[i + 1] = map->len;
    }
    map->n = n;
    return rc;
}

pkm_status pkm_assemble_nodal(const pkm_model *m, pkm_trip *trip, pkm_assembly_info *info,
                              pkm_ctx *ctx)
{
    const int nnodes = pkm_model_node_count(m), njoints = pkm_model_joint_count(m);
    const int nv = nnodes + 1, ground = nnodes;
    pkm_status rc = PKM_OK;
    rep *reps = calloc((size_t)nv, sizeof(*reps));
    edge *edges = malloc(sizeof(*edges) * (size_t)(njoints + nnodes + 1));
    int *visited = calloc((size_t)nv, sizeof(*visited));
    int *queue = malloc(sizeof(*queue) * (size_t)nv);
    int64_t *idx = NULL, *cc = NULL;
    double *E = NULL;
    pkm_dofmap *own = NULL, *P = NULL;
    if (reps == NULL || edges == NULL || visited == NULL || queue == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the nodal dof map");
        goto done;
    }
    /* The element E are taken from the dof map P (the caller's, or one of this call), so that
     * matrices and loads are projected through the same map. */
    if ((rc = pkm_trip_dofmap(trip, &own, &P, ctx)) != PKM_OK) goto done;
    if ((rc = pkm_dofmap_begin(P, nnodes, njoints, ctx)) != PKM_OK) goto done;
    int ne = 0;
    for (int j = 0; j < njoints; j++) {
        const pkm_joint *jt = pkm_model_joint(m, j);
        edges[ne++] = (edge){jt->node[0] < 0 ? ground : jt->node[0],
                             jt->node[1] < 0 ? ground : jt->node[1], j};
    }
    for (int i = 0; i < nnodes; i++) {
        const pkm_body *b = pkm_model_body(m, pkm_model_node(m, i)->body);
        if (b->kind == PKM_BODY_RIGID && i != b->first_node)
            edges[ne++] = (edge){b->first_node, i, -1};
    }
    int64_t ncoord = 0;
    rc = span_forest(m, edges, ne, reps, visited, queue, P, &ncoord, ctx);
    for (int q = 0; q < pkm_model_plane_count(m) && rc == PKM_OK; q++)
        rc = eliminate_plane(m, pkm_model_plane(m, q), reps, nv, P, &ncoord, ctx);
    if (rc != PKM_OK) goto done;
    const int64_t ntwist = ncoord;
    /* The curvature coordinates numbered into the map, where the loads find them too. */
    rc = pkm_dofmap_curvatures(P, pkm_model_element_count(m), ctx);
    if (rc != PKM_OK) goto done;
    cc = P->curv;
    rc = number_curvatures(m, cc, &ncoord, ctx);
    if (rc == PKM_OK) rc = fill_dofmap(P, reps, nnodes, ncoord, ctx);
    if (rc != PKM_OK) goto done;

    rc = pkm_trip_begin(trip, ncoord, ctx);
    if (rc != PKM_OK) goto done;
    int maxn = 0;
    for (int i = 0; i < nnodes; i++)
        maxn = (reps[i].n > maxn) ? reps[i].n : maxn;
    /* Room for two node representations and two nodes' curvature coordinates. */
    const int maxk = 2 * (PKM_BEAM_MAX_NODE_DOFS - 6);
    idx = malloc(sizeof(*idx) * (size_t)(2 * maxn + maxk));
    E = malloc(sizeof(*E) * (size_t)(2 * PKM_BEAM_MAX_NODE_DOFS * (2 * maxn + maxk)));
    if (idx == NULL || E == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate element maps");
        goto done;
    }
    for (int e = 0; e < pkm_model_element_count(m) && rc == PKM_OK; e++)
        rc = add_element(m, pkm_model_elem(m, e), P, cc + 2 * e, idx, E, trip, ctx);
    for (int bi = 0; bi < pkm_model_body_count(m) && rc == PKM_OK; bi++) {
        const pkm_body *b = pkm_model_body(m, bi);
        if (b->kind != PKM_BODY_RIGID) continue;
        const int o = b->first_node;
        double Mr[6][6];
        pkm_asm_rigid_inertia(m, b, Mr);
        int ncol = merge_idx(P, o, -1, idx);
        memset(E, 0, sizeof(*E) * (size_t)(6 * ncol));
        rep_rows(P, o, idx, ncol, E, 0);
        rc = pkm_trip_add_congruence(trip, 6, ncol, idx, E, NULL, &Mr[0][0], ctx);
    }
    if (rc == PKM_OK) rc = pkm_asm_add_joint_terms(m, P, trip, ctx);
    if (rc == PKM_OK && info != NULL) {
        memset(info, 0, sizeof(*info));
        info->n_total = 6 * (int64_t)nnodes + (ncoord - ntwist);
        info->n_reduced = ncoord;
    }
done:
    if (reps != NULL)
        for (int i = 0; i < nv; i++) {
            free(reps[i].c);
            free(reps[i].v);
        }
    free(reps);
    free(edges);
    free(visited);
    free(queue);
    free(idx);
    free(E);
    pkm_dofmap_destroy(&own);
    return rc;
}
