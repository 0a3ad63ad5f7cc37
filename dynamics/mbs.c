/* dynamics/mbs.c: the rigid multibody system of a model: bodies, frames, coordinates, cuts.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dynamics/dynamics_impl.h"

#include "core/core_impl.h"
#include "pkm/fem.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void dgelss_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, double *s, const double *rcond, int *rank,
                    double *work, const int *lwork, int *info);
extern void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                   double *w, double *work, const int *lwork, int *info);
extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt,
                    const int *ldvt, double *work, const int *lwork, int *info);

/* Constraint rows of a cut: the directions its free twists leave blocked. */
static int cut_rows(pkm_joint_type type)
{
    switch (type) {
    case PKM_JOINT_SPHERICAL:
        return 3;
    case PKM_JOINT_UNIVERSAL:
        return 4;
    case PKM_JOINT_CLAMPED:
        return 6;
    default:
        return 5; /* revolute, prismatic, helical */
    }
}

/* Frames (elementary screws) of a tree joint: clamped 1 fixed frame. */
static int joint_frames(pkm_joint_type type)
{
    switch (type) {
    case PKM_JOINT_SPHERICAL:
        return 3;
    case PKM_JOINT_UNIVERSAL:
        return 2;
    default:
        return 1;
    }
}

/* Rigid mass properties of a beam body: the consistent mass of each element under rigid motion
 * is that of a uniform line of mass rho A l (the Hermite and linear shape functions reproduce a
 * rigid field exactly), plus the torsional inertia rho Ip l about its axis and, with the rotary
 * inertia flag, rho Iy l and rho Iz l about the section's principal axes. */
static pkm_status beam_mass(const pkm_model *m, const pkm_body *b, double *mass, double com[3],
                            double J[3][3], pkm_ctx *ctx)
{
    double mt = 0.0, mc[3] = {0.0, 0.0, 0.0}, Jo[3][3] = {{0.0}};
    const double rho = b->material.rho;
    const int rot = (b->mass_flags & PKM_FEM_ROTARY_INERTIA) != 0;
    for (int e = b->first_elem; e < b->first_elem + b->nelem; e++) {
        const pkm_elem *el = pkm_model_elem(m, e);
        const double *x1 = pkm_model_node(m, el->n1)->x, *x2 = pkm_model_node(m, el->n2)->x;
        double R[3][3], l;
        pkm_status st = pkm_fem_beam3d_frame(x1, x2, b->zref, R, &l, ctx);
        if (st != PKM_OK) return st;
        const double me = rho * b->section.A * l;
        const double loc[3] = {rho * l * b->section.Ip + 0.0, rot ? rho * l * b->section.Iy : 0.0,
                               rot ? rho * l * b->section.Iz : 0.0};
        double c[3];
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (x1[k] + x2[k]);
        /* Inertia about the origin: the element's own (line mass m l^2/12 normal to its axis,
         * section terms along the local axes) plus m (|c|^2 I - c c^T). */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = me * l * l / 12.0 * ((i == j) - R[0][i] * R[0][j]);
                for (int a = 0; a < 3; a++)
                    v += loc[a] * R[a][i] * R[a][j];
                Jo[i][j] += v + me * ((i == j) * pkm_vec3_dot(c, c) - c[i] * c[j]);
            }
        mt += me;
        pkm_vec3_axpy(me, c, mc);
    }
    for (int k = 0; k < 3; k++)
        com[k] = mc[k] / mt;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            J[i][j] = Jo[i][j] - mt * ((i == j) * pkm_vec3_dot(com, com) - com[i] * com[j]);
    *mass = mt;
    return PKM_OK;
}

static void set_frame(mbs_frame *f, int parent, int coord, int prismatic, const double axis[3],
                      const double point[3], double pitch)
{
    f->parent = parent;
    f->coord = coord;
    f->prismatic = prismatic;
    memcpy(f->axis, axis, sizeof(f->axis));
    memcpy(f->point, point, sizeof(f->point));
    f->pitch = pitch;
}

/* The frames of tree joint j entered from frame pf, towards body `child`. */
static void add_joint_frames(pkm_mbs *s, int j, int pf, int child)
{
    const pkm_joint *jt = pkm_model_joint(s->m, j);
    static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const int n = joint_frames(jt->type), f0 = s->nf;
    s->joint_frame[j] = f0;
    s->joint_nframe[j] = n;
    for (int k = 0; k < n; k++) {
        const int coord = (jt->type == PKM_JOINT_CLAMPED) ? -1 : s->nq;
        const double *axis = jt->axis;
        if (jt->type == PKM_JOINT_SPHERICAL) axis = ex[k];
        /* A universal joint's first axis is fixed in body_a, its second in body_b: entered
         * from body_b, the tree meets axis2 first. */
        if (jt->type == PKM_JOINT_UNIVERSAL && (k == 1) == (jt->body[1] == child)) axis = jt->axis2;
        const double pitch = (jt->type == PKM_JOINT_HELICAL) ? jt->pitch / (2.0 * PKM_PI) : 0.0;
        set_frame(&s->fr[s->nf], k == 0 ? pf : s->nf - 1, coord, jt->type == PKM_JOINT_PRISMATIC,
                  axis, jt->point, pitch);
        if (coord >= 0) {
            if (n == 1)
                snprintf(s->coord_name[coord], sizeof(s->coord_name[coord]), "%s", jt->name);
            else
                snprintf(s->coord_name[coord], sizeof(s->coord_name[coord]), "%s.%d", jt->name,
                         k + 1);
            s->coord_frame[coord] = s->nf;
            s->coord_joint[coord] = j;
            s->nq++;
        }
        s->nf++;
    }
}

/* The platform's floating joint: translations x, y, z, then rotations about x, y, z through
 * its origin. */
static void add_platform_frames(pkm_mbs *s, int pb)
{
    static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const char *names[6] = {"x", "y", "z", "rx", "ry", "rz"};
    const pkm_node *o = pkm_model_node(s->m, pkm_model_body(s->m, pb)->first_node);
    for (int k = 0; k < 6; k++) {
        set_frame(&s->fr[s->nf], k == 0 ? -1 : s->nf - 1, s->nq, k < 3, ex[k % 3], o->x, 0.0);
        snprintf(s->coord_name[s->nq], sizeof(s->coord_name[s->nq]), "platform.%s", names[k]);
        s->coord_frame[s->nq] = s->nf;
        s->coord_joint[s->nq] = -1;
        s->nq++;
        s->nf++;
    }
    s->body_frame[pb] = s->nf - 1;
}

/* Sizes: frames, coordinates, constraint rows. */
static void count(const pkm_mbs *s, int *nf, int *nc, int *ncut)
{
    *nf = (pkm_model_platform(s->m) >= 0) ? 6 : 0;
    *nc = *ncut = 0;
    for (int j = 0; j < s->nj; j++) {
        const pkm_joint *jt = pkm_model_joint(s->m, j);
        if (pkm_topology_is_cut(s->topo, j)) {
            *nc += cut_rows(jt->type);
            (*ncut)++;
        } else
            *nf += joint_frames(jt->type);
    }
    *nc += pkm_model_plane_count(s->m); /* one row each */
    *ncut += pkm_model_plane_count(s->m);
}

static int lapack_lwork(int n)
{
    int info = 0, rank = 0, m1 = -1, one = 1;
    double q1 = 0.0, q2 = 0.0, a = 0.0, b = 0.0, sv = 0.0, rc = -1.0;
    dgelss_(&n, &n, &one, &a, &n, &b, &n, &sv, &rc, &rank, &q1, &m1, &info);
    dgesvd_("N", "A", &n, &n, &a, &n, &sv, &a, &n, &a, &n, &q2, &m1, &info);
    return (int)fmax(q1, q2) + 1;
}

static pkm_status allocate(pkm_mbs *s, int nf, pkm_ctx *ctx)
{
    const int n = (s->nq > s->nc ? s->nq : s->nc) + 1;
    s->fr = calloc((size_t)nf, sizeof(*s->fr));
    s->cut = calloc((size_t)s->ncut + 1, sizeof(*s->cut));
    s->body_frame = calloc((size_t)s->nb + 1, sizeof(int));
    s->joint_frame = calloc((size_t)s->nj + 1, sizeof(int));
    s->joint_nframe = calloc((size_t)s->nj + 1, sizeof(int));
    s->joint_cut = calloc((size_t)s->nj + 1, sizeof(int));
    s->coord_frame = calloc((size_t)s->nq + 1, sizeof(int));
    s->coord_joint = calloc((size_t)s->nq + 1, sizeof(int));
    s->coord_name = calloc((size_t)s->nq + 1, sizeof(*s->coord_name));
    s->mass = calloc((size_t)s->nb + 1, sizeof(double));
    s->com0 = calloc((size_t)s->nb + 1, sizeof(*s->com0));
    s->J0 = calloc((size_t)s->nb + 1, sizeof(*s->J0));
    s->act = calloc((size_t)s->nq + 1, sizeof(int));
    s->driven = calloc((size_t)s->nq + 1, sizeof(int));
    s->is_driven = calloc((size_t)s->nq + 1, sizeof(int));
    s->q = calloc((size_t)3 * s->nq + 3, sizeof(double));
    s->W = calloc((size_t)12 * s->nc + 12, sizeof(double));
    s->gamma = calloc(2 * (size_t)s->nc + 2, sizeof(double));
    s->ws = calloc((size_t)10 * n, sizeof(double));
    s->pidx = calloc((size_t)n, sizeof(int));
    s->q_kin = calloc((size_t)n, sizeof(double));
    s->fric = calloc((size_t)s->nj + 1, sizeof(*s->fric));
    if (s->fr == NULL || s->cut == NULL || s->body_frame == NULL || s->joint_frame == NULL ||
        s->joint_nframe == NULL || s->joint_cut == NULL || s->coord_frame == NULL ||
        s->coord_joint == NULL || s->coord_name == NULL || s->mass == NULL || s->com0 == NULL ||
        s->J0 == NULL || s->act == NULL || s->driven == NULL || s->is_driven == NULL ||
        s->q == NULL || s->W == NULL || s->gamma == NULL || s->ws == NULL || s->pidx == NULL ||
        s->q_kin == NULL || s->fric == NULL)
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the rigid multibody system");
    s->qd = s->q + s->nq;
    s->qdd = s->qd + s->nq;
    s->Wd = s->W + 6 * s->nc;
    s->r = s->gamma + s->nc;
    s->rhs = s->ws + n;
    s->x = s->rhs + n;
    s->sv = s->x + n;
    s->gq = s->sv + n;
    s->lam = s->gq + n;
    s->tau = s->lam + n;
    s->g0 = s->tau + n;
    s->fq = s->g0 + n;
    s->ce = s->fq + n;
    return PKM_OK;
}

/* Bodies' mass properties and frames, in the tree's order. */
static pkm_status build_tree(pkm_mbs *s, pkm_ctx *ctx)
{
    const int pb = pkm_model_platform(s->m);
    for (int b = 0; b < s->nb; b++) {
        const pkm_body *bd = pkm_model_body(s->m, b);
        s->body_frame[b] = -1;
        if (bd->kind == PKM_BODY_BEAM) {
            pkm_status st = beam_mass(s->m, bd, &s->mass[b], s->com0[b], s->J0[b], ctx);
            if (st != PKM_OK) return st;
        } else {
            s->mass[b] = bd->mass;
            memcpy(s->com0[b], bd->com, sizeof(bd->com));
            memcpy(s->J0[b], bd->inertia, sizeof(bd->inertia));
        }
    }
    for (int j = 0; j < s->nj; j++)
        s->joint_frame[j] = s->joint_cut[j] = -1;
    if (pb >= 0) add_platform_frames(s, pb);
    const int *order;
    const int norder = pkm_topology_order(s->topo, &order);
    for (int i = 0; i < norder; i++) {
        const int b = order[i], j = pkm_topology_parent_joint(s->topo, b);
        const pkm_joint *jt = pkm_model_joint(s->m, j);
        const int p = (jt->body[0] == b) ? jt->body[1] : jt->body[0];
        add_joint_frames(s, j, p == PKM_GROUND ? -1 : s->body_frame[p], b);
        s->body_frame[b] = s->nf - 1;
    }
    return PKM_OK;
}

static void build_cuts(pkm_mbs *s)
{
    int row = 0, c = 0;
    for (int j = 0; j < s->nj; j++) {
        if (!pkm_topology_is_cut(s->topo, j)) continue;
        const pkm_joint *jt = pkm_model_joint(s->m, j);
        mbs_cut *cu = &s->cut[c];
        cu->joint = j;
        cu->plane = -1;
        cu->row = row;
        cu->nrow = cut_rows(jt->type);
        cu->fa = (jt->body[0] == PKM_GROUND) ? -1 : s->body_frame[jt->body[0]];
        cu->fb = (jt->body[1] == PKM_GROUND) ? -1 : s->body_frame[jt->body[1]];
        s->joint_cut[j] = c++;
        row += cu->nrow;
    }
    for (int i = 0; i < pkm_model_plane_count(s->m); i++) {
        const int b = pkm_model_node(s->m, pkm_model_plane(s->m, i)->node)->body;
        mbs_cut *cu = &s->cut[c++];
        cu->joint = -1, cu->plane = i, cu->row = row++, cu->nrow = 1;
        cu->fa = -1, cu->fb = s->body_frame[b];
    }
}

/* The actuated coordinates (driven by default); an actuated cut is refused. The size of the
 * mechanism scales the closure tolerance. */
static pkm_status build_actuation(pkm_mbs *s, pkm_ctx *ctx)
{
    s->na = 0;
    for (int j = 0; j < s->nj; j++) {
        const pkm_joint *jt = pkm_model_joint(s->m, j);
        if (!jt->actuated) continue;
        if (s->joint_cut[j] >= 0)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "joint '%s' is actuated but closes a loop (a cut): flag another "
                            "joint of the loop as the cut",
                            jt->name);
        s->act[s->na++] = s->fr[s->joint_frame[j]].coord; /* a 1-dof joint (mesh/model.c) */
    }
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (int j = 0; j < s->nj; j++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pkm_model_joint(s->m, j)->point[k]);
            hi[k] = fmax(hi[k], pkm_model_joint(s->m, j)->point[k]);
        }
    double d[3];
    pkm_vec3_sub(hi, lo, d);
    s->size = (s->nj > 0 && pkm_vec3_norm(d) > 0.0) ? pkm_vec3_norm(d) : 1.0;
    return pkm_mbs_set_driven(s, s->na, s->act, ctx);
}

pkm_status pkm_mbs_create(const pkm_model *m, const double gravity[3], pkm_mbs **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_mbs *s = calloc(1, sizeof(*s));
    if (s == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a multibody system");
    s->m = m;
    memcpy(s->g, gravity, sizeof(s->g));
    s->singular = PKM_DYN_SINGULAR;
    for (int k = 0; k < PKM_MBS_LOADS; k++)
        s->load_body[k] = -1;
    s->nb = pkm_model_body_count(m);
    s->nj = pkm_model_joint_count(m);
    pkm_status st = pkm_topology_create(m, &s->topo, ctx);
    if (st != PKM_OK) goto fail;
    int nf;
    count(s, &nf, &s->nc, &s->ncut);
    s->nq = 0;
    for (int j = 0; j < s->nj; j++)
        if (!pkm_topology_is_cut(s->topo, j) && pkm_model_joint(m, j)->type != PKM_JOINT_CLAMPED)
            s->nq += joint_frames(pkm_model_joint(m, j)->type);
    if (pkm_model_platform(m) >= 0) s->nq += 6;
    st = allocate(s, nf, ctx);
    if (st != PKM_OK) goto fail;
    s->nq = 0;
    st = build_tree(s, ctx);
    if (st == PKM_OK) st = mbs_lumped_setup(s, ctx);
    if (st != PKM_OK) goto fail;
    build_cuts(s);
    st = mbs_sparse_pattern(s, ctx);
    if (st == PKM_OK) st = build_actuation(s, ctx);
    if (st != PKM_OK) goto fail;
    mbs_forward(s);
    mbs_constraint_rows(s);
    *out = s;
    return PKM_OK;
fail:
    pkm_mbs_destroy(&s);
    return st;
}

void pkm_mbs_destroy(pkm_mbs **sp)
{
    if (sp == NULL || *sp == NULL) return;
    pkm_mbs *s = *sp;
    pkm_topology_destroy(&s->topo);
    mbs_sparse_destroy(s);
    free(s->preload);
    free(s->fr);
    free(s->cut);
    free(s->body_frame);
    free(s->joint_frame);
    free(s->joint_nframe);
    free(s->joint_cut);
    free(s->coord_frame);
    free(s->coord_joint);
    free(s->coord_name);
    free(s->mass);
    free(s->com0);
    free(s->J0);
    free(s->act);
    free(s->driven);
    free(s->is_driven);
    free(s->q);
    free(s->W);
    free(s->gamma);
    free(s->C);
    free(s->ws);
    free(s->wa);
    free(s->work);
    free(s->pidx);
    free(s->q_kin);
    free(s->fric);
    free(s->rot);
    free(s);
    *sp = NULL;
}

int pkm_mbs_coord_count(const pkm_mbs *s)
{
    return s->nq;
}

const char *pkm_mbs_coord_name(const pkm_mbs *s, int i)
{
    return s->coord_name[i];
}

int pkm_mbs_joint_coords(const pkm_mbs *s, int j, int *first)
{
    *first = -1;
    if (s->joint_frame[j] < 0 || s->fr[s->joint_frame[j]].coord < 0) return 0;
    *first = s->fr[s->joint_frame[j]].coord;
    return s->joint_nframe[j];
}

pkm_status pkm_mbs_set_singular(pkm_mbs *s, double threshold, pkm_ctx *ctx)
{
    if (!(threshold > 0.0 && threshold < 1.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "singularity threshold %g: the conditioning bound must lie in (0, 1)",
                        threshold);
    s->singular = threshold;
    return PKM_OK;
}

pkm_status pkm_mbs_set_friction(pkm_mbs *s, const pkm_friction *fr, pkm_ctx *ctx)
{
    for (int j = 0; j < s->nj && fr != NULL; j++) {
        pkm_status st = pkm_friction_check(&fr[j], pkm_model_joint(s->m, j)->name, ctx);
        if (st != PKM_OK) return st;
    }
    for (int j = 0; j < s->nj; j++)
        s->fric[j] = (fr != NULL) ? fr[j] : (pkm_friction){.model = PKM_FRICTION_NONE};
    return PKM_OK;
}

int pkm_mbs_constraint_count(const pkm_mbs *s)
{
    return s->nc;
}

pkm_status pkm_mbs_set_driven(pkm_mbs *s, int n, const int *idx, pkm_ctx *ctx)
{
    s->kin_valid = 0;
    memset(s->is_driven, 0, (size_t)s->nq * sizeof(int));
    for (int i = 0; i < n; i++) {
        if (idx[i] < 0 || idx[i] >= s->nq || s->is_driven[idx[i]]) {
            const int bad = idx[i];
            memset(s->is_driven, 0, (size_t)s->nq * sizeof(int));
            for (int k = 0; k < s->nd; k++) /* the previous set stays */
                s->is_driven[s->driven[k]] = 1;
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "driven coordinate %d: out of range (0 to %d) or repeated", bad,
                            s->nq - 1);
        }
        s->is_driven[idx[i]] = 1;
    }
    if (n > 0) memmove(s->driven, idx, (size_t)n * sizeof(int));
    s->nd = n;
    s->sp_stale = 1;
    return PKM_OK;
}

pkm_status pkm_mbs_set_solver(pkm_mbs *s, pkm_dyn_solver solver, pkm_ctx *ctx)
{
    if (solver != PKM_DYN_SPARSE && solver != PKM_DYN_DENSE)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "linear solver %d: not sparse (0) or dense (1)",
                        (int)solver);
    s->solver = solver;
    return PKM_OK;
}

int pkm_mbs_driven(const pkm_mbs *s, const int **idx)
{
    *idx = s->driven;
    return s->nd;
}

void pkm_mbs_body_motion(const pkm_mbs *s, int b, double V[6], double A[6])
{
    const int f = s->body_frame[b];
    for (int k = 0; k < 6; k++) {
        V[k] = f < 0 ? 0.0 : s->fr[f].V[k];
        A[k] = f < 0 ? 0.0 : s->fr[f].A[k];
    }
}

void pkm_mbs_body_mass(const pkm_mbs *s, int b, double *mass, double com[3], double J[3][3])
{
    *mass = s->mass[b];
    memcpy(com, s->com0[b], sizeof(s->com0[b]));
    memcpy(J, s->J0[b], sizeof(s->J0[b]));
}

void pkm_mbs_body_displacement(const pkm_mbs *s, int b, double R[3][3], double p[3])
{
    const int f = s->body_frame[b];
    for (int i = 0; i < 3; i++) {
        p[i] = f < 0 ? 0.0 : s->fr[f].p[i];
        for (int k = 0; k < 3; k++)
            R[i][k] = f < 0 ? (double)(i == k) : s->fr[f].R[i][k];
    }
}

pkm_status mbs_dense_ready(pkm_mbs *s, pkm_ctx *ctx)
{
    if (s->wa != NULL) return PKM_OK;
    const size_t n = (size_t)(s->nq > s->nc ? s->nq : s->nc) + 1;
    s->lwork = lapack_lwork((int)n);
    s->wa = calloc(5 * n * n, sizeof(double));
    s->work = calloc((size_t)s->lwork, sizeof(double));
    s->C = calloc((size_t)s->nc * s->nq + 1, sizeof(double));
    if (s->wa == NULL || s->work == NULL || s->C == NULL) {
        free(s->wa);
        free(s->work);
        free(s->C);
        s->wa = s->work = s->C = NULL;
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the dense solver's %zu x %zu matrices",
                        n, n);
    }
    s->wb = s->wa + n * n;
    s->wg = s->wb + n * n;
    s->cp = s->wg + n * n;
    s->nul = s->cp + n * n;
    return PKM_OK;
}

int mbs_lstsq(pkm_mbs *s, int m, int n, const double *A, const double *b, double *x, double rcond,
              double *sv)
{
    const int one = 1, ld = (m > n ? m : n) > 0 ? (m > n ? m : n) : 1;
    int rank = 0, info = 0;
    if (mbs_dense_ready(s, NULL) != PKM_OK) return -1;
    if (m == 0 || n == 0) {
        for (int i = 0; i < n; i++)
            x[i] = 0.0;
        return 0;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            s->wa[(size_t)j * m + i] = A[(size_t)i * n + j]; /* column-major */
    for (int i = 0; i < ld; i++)
        s->wb[i] = (i < m) ? b[i] : 0.0;
    dgelss_(&m, &n, &one, s->wa, &m, s->wb, &ld, s->ws, &rcond, &rank, s->work, &s->lwork, &info);
    if (info != 0) return -1;
    memcpy(x, s->wb, (size_t)n * sizeof(double));
    if (sv != NULL) memcpy(sv, s->ws, (size_t)(m < n ? m : n) * sizeof(double));
    return rank;
}

int mbs_singular_values(pkm_mbs *s, int m, int n, const double *A, double *sv)
{
    int info = 0;
    if (mbs_dense_ready(s, NULL) != PKM_OK) return -1;
    if (m == 0 || n == 0) return 0;
    double *G = s->wa, *w = s->wb;
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            double g = 0.0;
            for (int i = 0; i < m; i++)
                g += A[(size_t)i * n + a] * A[(size_t)i * n + b];
            G[(size_t)b * n + a] = g; /* upper triangle, column-major */
        }
    dsyev_("N", "U", &n, G, &n, w, s->work, &s->lwork, &info);
    if (info != 0) return -1;
    for (int k = 0; k < (m < n ? m : n); k++)
        sv[k] = sqrt(fmax(w[n - 1 - k], 0.0));
    return 0;
}

int mbs_nullspace(pkm_mbs *s, int m, int n, const double *A, double *N, double rtol)
{
    int info = 0, ldu = 1, lda = m > 0 ? m : 1;
    if (mbs_dense_ready(s, NULL) != PKM_OK) return -1;
    if (m == 0) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                N[(size_t)i * n + j] = (i == j);
        return n;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            s->wa[(size_t)j * m + i] = A[(size_t)i * n + j];
    dgesvd_("N", "A", &m, &n, s->wa, &lda, s->ws, NULL, &ldu, s->wg, &n, s->work, &s->lwork, &info);
    if (info != 0) return -1;
    const int k = m < n ? m : n;
    int rank = 0;
    while (rank < k && s->ws[rank] > rtol * s->ws[0])
        rank++;
    const int nn = n - rank;
    /* Rows rank..n-1 of V^T (column-major in wg) are the null-space basis vectors. */
    for (int i = 0; i < n; i++)
        for (int c = 0; c < nn; c++)
            N[(size_t)i * nn + c] = s->wg[(size_t)i * n + rank + c];
    return nn;
}
