/* mesh/model.c: building a mechanism model: bodies, nodes, elements, joints.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "mesh/mesh_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grow *arr (element size sz) so that it holds at least need items. */
static int grow(void **arr, int *cap, int need, size_t sz)
{
    if (need <= *cap) return 1;
    int ncap = (*cap > 0) ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, (size_t)ncap * sz);
    if (p == NULL) return 0;
    *arr = p;
    *cap = ncap;
    return 1;
}

/* A given name is copied (truncated), not formatted: models are built once per pose of a map. */
static void copy_name(char dst[PKM_NAME_LEN], const char *src, const char *fallback, int idx)
{
    if (src != NULL && src[0] != '\0') {
        size_t len = strlen(src);
        if (len > PKM_NAME_LEN - 1) len = PKM_NAME_LEN - 1;
        memcpy(dst, src, len);
        dst[len] = '\0';
    } else {
        snprintf(dst, PKM_NAME_LEN, "%s %d", fallback, idx);
    }
}

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* An inertia tensor symmetric to PKM_MESH_INERTIA_SYM_RTOL. */
static int symmetric3(const double *I)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            if (fabs(I[3 * i + j] - I[3 * j + i]) >
                PKM_MESH_INERTIA_SYM_RTOL *
                    (fabs(I[3 * i + j]) + fabs(I[3 * j + i]) + PKM_MESH_INERTIA_SYM_FLOOR))
                return 0;
    return 1;
}

pkm_status pkm_model_create(pkm_model **out, pkm_ctx *ctx)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a model");
    (*out)->platform = -1;
    return PKM_OK;
}

void pkm_model_destroy(pkm_model **model)
{
    if (model == NULL || *model == NULL) return;
    free((*model)->bodies);
    free((*model)->nodes);
    free((*model)->elems);
    free((*model)->joints);
    free((*model)->masses);
    free((*model)->planes);
    free(*model);
    *model = NULL;
}

int pkm_model_body_count(const pkm_model *m)
{
    return m->nbodies;
}

int pkm_model_node_count(const pkm_model *m)
{
    return m->nnodes;
}

int pkm_model_element_count(const pkm_model *m)
{
    return m->nelems;
}

int pkm_model_joint_count(const pkm_model *m)
{
    return m->njoints;
}

int pkm_model_mass_count(const pkm_model *m)
{
    return m->nmasses;
}

int pkm_model_platform(const pkm_model *m)
{
    return m->platform;
}

const pkm_body *pkm_model_body(const pkm_model *m, int i)
{
    return &m->bodies[i];
}

const pkm_node *pkm_model_node(const pkm_model *m, int i)
{
    return &m->nodes[i];
}

const pkm_elem *pkm_model_elem(const pkm_model *m, int i)
{
    return &m->elems[i];
}

const pkm_joint *pkm_model_joint(const pkm_model *m, int i)
{
    return &m->joints[i];
}

int pkm_model_plane_count(const pkm_model *m)
{
    return m->nplanes;
}

const pkm_plane *pkm_model_plane(const pkm_model *m, int i)
{
    return &m->planes[i];
}

const pkm_lumped_mass *pkm_model_mass(const pkm_model *m, int i)
{
    return &m->masses[i];
}

static pkm_status add_node(pkm_model *m, const double x[3], int body, pkm_ctx *ctx)
{
    if (!grow((void **)&m->nodes, &m->cap_nodes, m->nnodes + 1, sizeof(pkm_node)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate model nodes");
    pkm_node *n = &m->nodes[m->nnodes++];
    memcpy(n->x, x, sizeof(n->x));
    n->body = body;
    return PKM_OK;
}

pkm_status pkm_model_add_beam(pkm_model *m, const pkm_beam_desc *d, int *id, pkm_ctx *ctx)
{
    const int b = m->nbodies;
    char name[PKM_NAME_LEN];
    copy_name(name, d->name, "beam", b);
    if (d->npoints < 2 || d->points == NULL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "beam '%s': needs at least 2 points (got %d)", name,
                        d->npoints);
    pkm_status rc = pkm_fem_props_check(&d->section, &d->material, name, ctx);
    if (rc != PKM_OK) return rc;
    if ((int)d->element < 0 || (int)d->element >= pkm_beam_type_count ||
        !pkm_beam_type_spatial(&pkm_beam_types[d->element]))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "beam '%s': unknown element kind %d", name,
                        (int)d->element);
    if (!all_finite(d->zref, 3) || pkm_vec3_norm(d->zref) == 0.0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "beam '%s': section axis zref must be a nonzero vector", name);
    int total = 0;
    for (int s = 0; s + 1 < d->npoints; s++) {
        int ne = (d->nelem != NULL) ? d->nelem[s] : 1;
        if (ne < 1 || ne > 1000000)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "beam '%s': segment %d has %d elements (need >= 1)", name, s + 1, ne);
        if (!all_finite(d->points[s], 3) || !all_finite(d->points[s + 1], 3))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "beam '%s': point %d is not finite", name, s + 1);
        /* The frame check rejects zero-length segments and zref along the beam; its message is
         * prefixed with the beam's name. */
        double R[3][3], l;
        pkm_ctx fctx;
        pkm_ctx_clear(&fctx);
        rc = pkm_fem_beam3d_frame(d->points[s], d->points[s + 1], d->zref, R, &l, &fctx);
        if (rc != PKM_OK)
            return PKM_FAIL(ctx, rc, "beam '%s', segment %d: %s", name, s + 1, fctx.msg);
        total += ne;
    }
    if (!grow((void **)&m->bodies, &m->cap_bodies, b + 1, sizeof(pkm_body)) ||
        !grow((void **)&m->elems, &m->cap_elems, m->nelems + total, sizeof(pkm_elem)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate beam '%s'", name);
    pkm_body *body = &m->bodies[b];
    memset(body, 0, sizeof(*body));
    body->kind = PKM_BODY_BEAM;
    memcpy(body->name, name, sizeof(name));
    memcpy(body->zref, d->zref, sizeof(body->zref));
    body->section = d->section;
    body->material = d->material;
    body->mass_flags = d->mass_flags;
    body->element = d->element;
    body->end_curvature_zero = d->end_curvature_zero;
    body->first_node = m->nnodes;
    body->first_elem = m->nelems;
    rc = add_node(m, d->points[0], b, ctx);
    for (int s = 0; rc == PKM_OK && s + 1 < d->npoints; s++) {
        int ne = (d->nelem != NULL) ? d->nelem[s] : 1;
        for (int e = 1; rc == PKM_OK && e <= ne; e++) {
            double x[3], t = (double)e / ne;
            for (int k = 0; k < 3; k++)
                x[k] = (e == ne) ? d->points[s + 1][k]
                                 : d->points[s][k] + t * (d->points[s + 1][k] - d->points[s][k]);
            rc = add_node(m, x, b, ctx);
            pkm_elem *el = &m->elems[m->nelems++];
            el->body = b;
            el->n1 = m->nnodes - 2;
            el->n2 = m->nnodes - 1;
        }
    }
    if (rc != PKM_OK) return rc;
    body->nnodes = m->nnodes - body->first_node;
    body->nelem = m->nelems - body->first_elem;
    m->nbodies++;
    if (id != NULL) *id = b;
    return PKM_OK;
}

pkm_status pkm_model_add_rigid(pkm_model *m, const pkm_rigid_desc *d, int *id, pkm_ctx *ctx)
{
    const int b = m->nbodies;
    char name[PKM_NAME_LEN];
    copy_name(name, d->name, "rigid body", b);
    if (!isfinite(d->mass) || d->mass < 0.0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "rigid body '%s': mass %g kg must be >= 0", name,
                        d->mass);
    if (!all_finite(d->origin, 3) || !all_finite(d->com, 3) || !all_finite(&d->inertia[0][0], 9))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "rigid body '%s': non-finite origin, centre or inertia", name);
    if (!symmetric3(&d->inertia[0][0]))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "rigid body '%s': inertia tensor not symmetric",
                        name);
    if (!grow((void **)&m->bodies, &m->cap_bodies, b + 1, sizeof(pkm_body)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate rigid body '%s'", name);
    pkm_body *body = &m->bodies[b];
    memset(body, 0, sizeof(*body));
    body->kind = PKM_BODY_RIGID;
    memcpy(body->name, name, sizeof(name));
    body->mass = d->mass;
    memcpy(body->com, d->com, sizeof(body->com));
    memcpy(body->inertia, d->inertia, sizeof(body->inertia));
    body->first_node = m->nnodes;
    pkm_status rc = add_node(m, d->origin, b, ctx);
    if (rc != PKM_OK) return rc;
    body->nnodes = 1;
    m->nbodies++;
    if (id != NULL) *id = b;
    return PKM_OK;
}

/* The node of body b at point x: a beam's node within a relative tolerance of its size; for a
 * rigid body an existing attachment node at x or a new one (rigid bodies grow attachment nodes
 * as joints are added, so their nodes need not be consecutive). */
static pkm_status body_node_at(pkm_model *m, int b, const double x[3], const char *jname, int *node,
                               pkm_ctx *ctx)
{
    pkm_body *body = &m->bodies[b];
    /* One pass in squared lengths (a model build makes this search for every joint side). */
    double scale2 = 0.0, d2best = INFINITY;
    int best = -1;
    for (int i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].body != b) continue;
        const double *y = m->nodes[i].x;
        const double d[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
        const double d2 = pkm_vec3_dot(d, d), y2 = pkm_vec3_dot(y, y);
        scale2 = y2 > scale2 ? y2 : scale2;
        if (d2 < d2best) d2best = d2, best = i;
    }
    const double tol = PKM_MESH_COINCIDENT_RTOL * fmax(sqrt(scale2), 1.0), dbest = sqrt(d2best);
    if (dbest <= tol) {
        *node = best;
        return PKM_OK;
    }
    if (body->kind == PKM_BODY_BEAM)
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "joint '%s': point (%g, %g, %g) m is not a node of beam '%s' (nearest node "
                        "%.3g m away); add it to the beam's points",
                        jname, x[0], x[1], x[2], body->name, dbest);
    pkm_status rc = add_node(m, x, b, ctx);
    if (rc != PKM_OK) return rc;
    body->nnodes++;
    *node = m->nnodes - 1;
    return PKM_OK;
}

static int unit3(const double a[3], double u[3])
{
    double n = pkm_vec3_norm(a);
    if (!(n > 0.0) || !isfinite(n)) return 0;
    for (int k = 0; k < 3; k++)
        u[k] = a[k] / n;
    return 1;
}

/* The springs and rotor inertias of d on joint j's free motions (j's type and axes set). */
static pkm_status joint_springs(pkm_joint *j, const pkm_joint_desc *d, pkm_ctx *ctx)
{
    double S[PKM_JOINT_MAX_FREE][6];
    const int nf = pkm_joint_free_twists(j, S);
    for (int f = 0; f < PKM_JOINT_MAX_FREE; f++) {
        const double k = d->stiffness[f], J = d->rotor_inertia[f];
        if (!isfinite(k) || k < 0.0 || !isfinite(J) || J < 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint '%s': stiffness %g and rotor inertia %g of free motion %d must "
                            "be finite and >= 0",
                            j->name, k, J, f + 1);
        if (f >= nf && (k != 0.0 || J != 0.0))
            return PKM_FAIL(ctx, PKM_ERR_INVALID,
                            "joint '%s': a stiffness or rotor inertia on free motion %d, but the "
                            "joint has %d",
                            j->name, f + 1, nf);
        j->stiffness[f][f] = k;
        j->rotor_inertia[f] = J;
    }
    return PKM_OK;
}

pkm_status pkm_model_add_joint(pkm_model *m, const pkm_joint_desc *d, int *id, pkm_ctx *ctx)
{
    const int jidx = m->njoints;
    char name[PKM_NAME_LEN];
    copy_name(name, d->name, "joint", jidx);
    if (d->type < PKM_JOINT_CLAMPED || d->type > PKM_JOINT_HELICAL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': unknown joint type %d", name,
                        (int)d->type);
    for (int s = 0; s < 2; s++) {
        int b = s ? d->body_b : d->body_a;
        if (b != PKM_GROUND && (b < 0 || b >= m->nbodies))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': body index %d does not exist", name,
                            b);
    }
    if (d->body_a == d->body_b)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': connects a body to itself", name);
    if (!all_finite(d->point, 3))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': point is not finite", name);
    pkm_joint j;
    pkm_status rc = PKM_OK;
    memset(&j, 0, sizeof(j));
    memcpy(j.name, name, sizeof(name));
    j.type = d->type;
    j.cut = d->cut;
    if (d->actuated && d->type != PKM_JOINT_REVOLUTE && d->type != PKM_JOINT_PRISMATIC &&
        d->type != PKM_JOINT_HELICAL)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "joint '%s': only revolute, prismatic and helical joints can be actuated",
                        name);
    j.actuated = d->actuated != 0;
    memcpy(j.point, d->point, sizeof(j.point));
    if (d->type == PKM_JOINT_REVOLUTE || d->type == PKM_JOINT_PRISMATIC ||
        d->type == PKM_JOINT_UNIVERSAL || d->type == PKM_JOINT_HELICAL) {
        if (!unit3(d->axis, j.axis))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': axis must be a nonzero vector",
                            name);
    }
    if (d->type == PKM_JOINT_UNIVERSAL) {
        if (!unit3(d->axis2, j.axis2))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': axis2 must be a nonzero vector",
                            name);
        double c[3];
        pkm_vec3_cross(j.axis, j.axis2, c);
        if (pkm_vec3_norm(c) < PKM_PARALLEL_SIN)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': universal axes are parallel", name);
    }
    if (d->type == PKM_JOINT_HELICAL) {
        if (!isfinite(d->pitch) || d->pitch == 0.0)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': helical pitch %g m must be nonzero",
                            name, d->pitch);
        j.pitch = d->pitch;
    }
    rc = joint_springs(&j, d, ctx);
    if (rc != PKM_OK) return rc;
    for (int s = 0; s < 2; s++) {
        int b = s ? d->body_b : d->body_a;
        j.body[s] = b;
        j.node[s] = -1;
        if (b == PKM_GROUND) continue;
        rc = body_node_at(m, b, d->point, name, &j.node[s], ctx);
        if (rc != PKM_OK) return rc;
    }
    if (!grow((void **)&m->joints, &m->cap_joints, jidx + 1, sizeof(pkm_joint)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate joint '%s'", name);
    m->joints[m->njoints++] = j;
    if (id != NULL) *id = jidx;
    return PKM_OK;
}

pkm_status pkm_model_add_joint_spring(pkm_model *m, int joint, pkm_spring_kind kind,
                                      const double axis[3], double k, pkm_ctx *ctx)
{
    if (joint < 0 || joint >= m->njoints)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint spring: joint %d does not exist", joint);
    pkm_joint *j = &m->joints[joint];
    double a[3], S[PKM_JOINT_MAX_FREE][6], e[PKM_JOINT_MAX_FREE] = {0}, norm = 0.0;
    if (kind != PKM_SPRING_TORSION && kind != PKM_SPRING_LINEAR)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "joint '%s': unknown spring kind %d", j->name,
                        (int)kind);
    if (!unit3(axis, a) || !isfinite(k) || k < 0.0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "joint '%s': a spring needs a nonzero axis and a stiffness >= 0 (got %g)",
                        j->name, k);
    const int nf = pkm_joint_free_twists(j, S), off = (kind == PKM_SPRING_TORSION) ? 3 : 0;
    for (int f = 0; f < nf; f++) {
        e[f] = pkm_vec3_dot(S[f] + off, a);
        norm += e[f] * e[f];
    }
    /* A free twist within PKM_PARALLEL_SIN of normal to the axis gives it nothing to hold. */
    if (!(sqrt(norm) > PKM_PARALLEL_SIN))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "joint '%s': no free motion of the joint is %s the spring's axis", j->name,
                        kind == PKM_SPRING_TORSION ? "a rotation about" : "a translation along");
    for (int f = 0; f < nf; f++)
        for (int g = 0; g < nf; g++)
            j->stiffness[f][g] += k * e[f] * e[g];
    return PKM_OK;
}

pkm_status pkm_model_add_mass(pkm_model *m, const pkm_mass_desc *d, int *id, pkm_ctx *ctx)
{
    char name[PKM_NAME_LEN];
    copy_name(name, d->name, "mass", m->nmasses);
    if (d->joint < 0 || d->joint >= m->njoints)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "mass '%s': joint %d does not exist", name, d->joint);
    const pkm_joint *j = &m->joints[d->joint];
    if ((d->side != 0 && d->side != 1) || j->node[d->side] < 0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "mass '%s': side %d of joint '%s' is not a body (0: body_a, 1: body_b, "
                        "not the ground)",
                        name, d->side, j->name);
    if (!isfinite(d->mass) || d->mass < 0.0 || !all_finite(&d->inertia[0][0], 9))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "mass '%s': mass %g kg must be >= 0, the inertia finite", name, d->mass);
    if (!symmetric3(&d->inertia[0][0]))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "mass '%s': inertia tensor not symmetric", name);
    if (!grow((void **)&m->masses, &m->cap_masses, m->nmasses + 1, sizeof(pkm_lumped_mass)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate mass '%s'", name);
    pkm_lumped_mass *l = &m->masses[m->nmasses];
    memcpy(l->name, name, sizeof(name));
    l->joint = d->joint;
    l->node = j->node[d->side];
    l->mass = d->mass;
    memcpy(l->inertia, d->inertia, sizeof(l->inertia));
    if (id != NULL) *id = m->nmasses;
    m->nmasses++;
    return PKM_OK;
}

pkm_status pkm_model_add_plane(pkm_model *m, const pkm_plane_desc *d, int *id, pkm_ctx *ctx)
{
    char name[PKM_NAME_LEN];
    copy_name(name, d->name, "plane", m->nplanes);
    if (d->body < 0 || d->body >= m->nbodies)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "plane '%s': body %d does not exist", name, d->body);
    double n[3];
    if (!unit3(d->normal, n) || !all_finite(d->point, 3))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "plane '%s': the normal must be finite and nonzero",
                        name);
    int node = -1;
    pkm_status rc = body_node_at(m, d->body, d->point, name, &node, ctx);
    if (rc != PKM_OK) return rc;
    if (!grow((void **)&m->planes, &m->cap_planes, m->nplanes + 1, sizeof(pkm_plane)))
        return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate plane '%s'", name);
    pkm_plane *q = &m->planes[m->nplanes];
    memcpy(q->name, name, sizeof(name));
    q->node = node;
    memcpy(q->normal, n, sizeof(n));
    if (id != NULL) *id = m->nplanes;
    m->nplanes++;
    return PKM_OK;
}

pkm_status pkm_model_set_platform(pkm_model *m, int body, pkm_ctx *ctx)
{
    if (body < 0 || body >= m->nbodies || m->bodies[body].kind != PKM_BODY_RIGID)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "platform: body %d is not a rigid body of the model",
                        body);
    m->platform = body;
    return PKM_OK;
}

int pkm_joint_free_twists(const pkm_joint *j, double S[PKM_JOINT_MAX_FREE][6])
{
    memset(S, 0, sizeof(double) * 6 * PKM_JOINT_MAX_FREE);
    switch (j->type) {
    case PKM_JOINT_CLAMPED:
        return 0;
    case PKM_JOINT_REVOLUTE:
        for (int k = 0; k < 3; k++)
            S[0][3 + k] = j->axis[k];
        return 1;
    case PKM_JOINT_PRISMATIC:
        for (int k = 0; k < 3; k++)
            S[0][k] = j->axis[k];
        return 1;
    case PKM_JOINT_SPHERICAL:
        for (int k = 0; k < 3; k++)
            S[k][3 + k] = 1.0;
        return 3;
    case PKM_JOINT_UNIVERSAL:
        for (int k = 0; k < 3; k++) {
            S[0][3 + k] = j->axis[k];
            S[1][3 + k] = j->axis2[k];
        }
        return 2;
    case PKM_JOINT_HELICAL:
        /* Rotation about the axis carries the translation pitch/(2 pi) per radian. */
        for (int k = 0; k < 3; k++) {
            S[0][k] = j->pitch / (2.0 * PKM_PI) * j->axis[k];
            S[0][3 + k] = j->axis[k];
        }
        return 1;
    }
    return 0;
}
