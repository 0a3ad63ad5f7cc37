/* cases/robot.c: mechanisms described by their topology (include/pkm/robot.h): the model at the
 * assembly configuration, the inverse kinematics by Newton on the loop closure, the model at a
 * pose, and the case that wraps a description.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/robot.h"

#include "cases/cases_impl.h"
#include "core/core_impl.h"
#include "pkm/dynamics.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pkm_robot_dynamics_defaults(pkm_robot *r)
{
    /* No friction; the Stribeck exponent 2 of Bo and Pavelescu, a Stribeck velocity of 0.1 and
     * ADAMS's default arms of 1 m, the built-in cases' placeholders. */
    r->dynamics = (pkm_case_dynamics){.friction_model = PKM_FRICTION_NONE,
                                      .vs = 0.1,
                                      .delta = 2.0,
                                      .rp = 1.0,
                                      .rn = 1.0,
                                      .rb = 1.0,
                                      .friction_joints = PKM_CASE_FRICTION_ACTUATED};
}

double pkm_robot_assembly_value(const pkm_robot *r, pkm_robot_coord k)
{
    return k <= PKM_ROBOT_Z ? r->body[r->platform].origin[k] : 0.0;
}

const char *pkm_robot_pose_unit(const pkm_robot *r, int k)
{
    const pkm_robot_coord c = r->pose_coord[k];
    const int slides =
        c == PKM_ROBOT_JOINT && r->joint[r->pose_joint[k]].d.type == PKM_JOINT_PRISMATIC;
    return c <= PKM_ROBOT_Z || slides ? "m" : "rad";
}

static void transform_point(const double R[3][3], const double p[3], const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = R[i][0] * x[0] + R[i][1] * x[1] + R[i][2] * x[2] + p[i];
}

static void rotate(const double R[3][3], const double x[3], double y[3])
{
    static const double zero[3] = {0, 0, 0};
    transform_point(R, zero, x, y);
}

/* Body b moved by (R, p) into m; elastic 0: the kinematic model, whose beams need nodes at
 * their polyline points only (one element per segment, whatever the mesh asks). */
static pkm_status add_body(pkm_model *m, const pkm_robot_body *b, const double R[3][3],
                           const double p[3], int elastic, pkm_ctx *ctx)
{
    if (b->kind == PKM_BODY_RIGID) {
        pkm_rigid_desc d = {.name = b->name, .mass = b->mass};
        transform_point(R, p, b->origin, d.origin);
        transform_point(R, p, b->com, d.com);
        /* J' = R J R^T, its lower half mirrored from the upper (exactly symmetric) */
        for (int i = 0; i < 3; i++)
            for (int k = i; k < 3; k++) {
                for (int a = 0; a < 3; a++)
                    for (int c = 0; c < 3; c++)
                        d.inertia[i][k] += R[i][a] * b->inertia[a][c] * R[k][c];
                d.inertia[k][i] = d.inertia[i][k];
            }
        return pkm_model_add_rigid(m, &d, NULL, ctx);
    }
    double pts[PKM_ROBOT_MAX_POINTS][3];
    for (int i = 0; i < b->npoints; i++)
        transform_point(R, p, b->points[i], pts[i]);
    pkm_beam_desc d = {.name = b->name,
                       .npoints = b->npoints,
                       .points = (const double(*)[3])pts,
                       .nelem = elastic ? b->nelem : NULL,
                       .section = b->section,
                       .material = b->material,
                       .mass_flags = b->mass_flags,
                       .element = b->element};
    rotate(R, b->zref, d.zref);
    return pkm_model_add_beam(m, &d, NULL, ctx);
}

/* The body whose motion carries joint j's point: a sliding joint's (prismatic, helical) point
 * stays on a beam if it has one (its node), else on body_b; any other joint's point is common
 * to its two bodies. PKM_GROUND when both are the ground. */
static int joint_carrier(const pkm_robot *r, const pkm_joint_desc *d)
{
    const int a = d->body_a, b = d->body_b;
    if (d->type == PKM_JOINT_PRISMATIC || d->type == PKM_JOINT_HELICAL) {
        if (a != PKM_GROUND && r->body[a].kind == PKM_BODY_BEAM) return a;
        return b != PKM_GROUND ? b : a;
    }
    return a != PKM_GROUND ? a : b;
}

static const double identity[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const double origin[3] = {0, 0, 0};

/* Lumped mass l added to m, its inertia turned with the body that carries it (R NULL: the
 * assembly configuration). */
static pkm_status add_mass(pkm_model *m, const pkm_robot *r, const pkm_robot_mass *l,
                           const double (*R)[3][3], pkm_ctx *ctx)
{
    const pkm_joint_desc *jd = &r->joint[l->joint].d;
    const int body = l->side == 0 ? jd->body_a : jd->body_b;
    pkm_mass_desc d = {.name = l->name, .joint = l->joint, .side = l->side, .mass = l->mass};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3 && R != NULL; a++)
                for (int c = 0; c < 3; c++)
                    d.inertia[i][k] += R[body][i][a] * l->inertia[a][c] * R[body][k][c];
    if (R == NULL) memcpy(d.inertia, l->inertia, sizeof(d.inertia));
    return pkm_model_add_mass(m, &d, NULL, ctx);
}

/* Spring sp added to m, its axis turned with the joint's carrier (R NULL: the assembly
 * configuration). */
static pkm_status add_spring(pkm_model *m, const pkm_robot *r, const pkm_robot_spring *sp,
                             const double (*R)[3][3], pkm_ctx *ctx)
{
    const int carrier = joint_carrier(r, &r->joint[sp->joint].d);
    double axis[3];
    if (R != NULL && carrier != PKM_GROUND)
        rotate(R[carrier], sp->axis, axis);
    else
        memcpy(axis, sp->axis, sizeof(axis));
    return pkm_model_add_joint_spring(m, sp->joint, sp->kind, axis, sp->k, ctx);
}

/* The model with every body b moved by (R[b], p[b]); elastic: locked joints clamped. */
static pkm_status build_moved(const pkm_robot *r, const double (*R)[3][3], const double (*p)[3],
                              int elastic, pkm_model **out, pkm_ctx *ctx)
{
    *out = NULL;
    pkm_model *m = NULL;
    pkm_status rc = pkm_model_create(&m, ctx);
    for (int b = 0; b < r->nbody && rc == PKM_OK; b++)
        rc = add_body(m, &r->body[b], R != NULL ? R[b] : identity, p != NULL ? p[b] : origin,
                      elastic, ctx);
    if (rc == PKM_OK && r->platform >= 0) rc = pkm_model_set_platform(m, r->platform, ctx);
    for (int j = 0; j < r->njoint && rc == PKM_OK; j++) {
        const pkm_robot_joint *rj = &r->joint[j];
        pkm_joint_desc d = rj->d;
        d.name = rj->name;
        const int carrier = joint_carrier(r, &d);
        if (carrier != PKM_GROUND && R != NULL) {
            transform_point(R[carrier], p[carrier], rj->d.point, d.point);
            rotate(R[carrier], rj->d.axis, d.axis);
            /* A universal joint's second axis is fixed in body_b (pkm_joint_desc). */
            const int b2 = d.body_b != PKM_GROUND ? d.body_b : carrier;
            rotate(R[b2], rj->d.axis2, d.axis2);
        }
        /* A locked drive's rotor turns with the motor, not with the clamped joint. */
        if (elastic && rj->locked && d.stiffness[0] == 0.0) {
            d.type = PKM_JOINT_CLAMPED;
            memset(d.rotor_inertia, 0, sizeof(d.rotor_inertia));
        }
        if (elastic) d.actuated = 0;
        rc = pkm_model_add_joint(m, &d, NULL, ctx);
    }
    for (int i = 0; i < r->nmass && rc == PKM_OK; i++)
        rc = add_mass(m, r, &r->mass[i], R, ctx);
    for (int i = 0; i < r->nspring && rc == PKM_OK && elastic; i++)
        rc = add_spring(m, r, &r->spring[i], R, ctx);
    for (int i = 0; i < r->ncontact && rc == PKM_OK; i++) {
        const pkm_robot_contact *k = &r->contact[i];
        pkm_plane_desc d = {.name = k->name, .body = k->body};
        memcpy(d.normal, k->normal, sizeof(d.normal));
        if (R != NULL)
            transform_point(R[k->body], p[k->body], k->point, d.point);
        else
            memcpy(d.point, k->point, sizeof(d.point));
        rc = pkm_model_add_plane(m, &d, NULL, ctx);
    }
    if (rc != PKM_OK) {
        pkm_model_destroy(&m);
        return rc;
    }
    *out = m;
    return PKM_OK;
}

pkm_status pkm_robot_build_assembly(const pkm_robot *r, pkm_model **out, pkm_ctx *ctx)
{
    return build_moved(r, NULL, NULL, 0, out, ctx);
}

pkm_status pkm_robot_mobility(const pkm_robot *r, int *mobility, pkm_ctx *ctx)
{
    static const double no_gravity[3] = {0.0, 0.0, 0.0};
    *mobility = -1;
    pkm_model *m = NULL;
    pkm_mbs *s = NULL;
    pkm_status rc = pkm_robot_build_assembly(r, &m, ctx);
    if (rc == PKM_OK) rc = pkm_mbs_create(m, no_gravity, &s, ctx);
    if (rc == PKM_OK) rc = pkm_mbs_mobility(s, mobility, ctx);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    return rc;
}

/* The joint left most open at the mbs's current state: the largest gap between its point
 * carried by either body, over the size. */
static int most_open_joint(const pkm_robot *r, const pkm_mbs *s)
{
    int worst = -1;
    double gap_max = -1.0;
    for (int j = 0; j < r->njoint; j++) {
        const pkm_joint_desc *d = &r->joint[j].d;
        double x[2][3];
        const int body[2] = {d->body_a, d->body_b};
        for (int k = 0; k < 2; k++) {
            double R[3][3], p[3];
            if (body[k] == PKM_GROUND)
                memcpy(x[k], d->point, sizeof(x[k]));
            else {
                pkm_mbs_body_displacement(s, body[k], R, p);
                transform_point(PKM_CONST33(R), p, d->point, x[k]);
            }
        }
        double gap = 0.0;
        for (int i = 0; i < 3; i++)
            gap += (x[0][i] - x[1][i]) * (x[0][i] - x[1][i]);
        if (d->type != PKM_JOINT_PRISMATIC && d->type != PKM_JOINT_HELICAL && gap > gap_max) {
            gap_max = gap;
            worst = j;
        }
    }
    return worst;
}

/* The rigid-body model's coordinate (pkm_mbs_coord_name) that pose coordinate k sets: the
 * platform's floating joint's, or a one-coordinate joint's, named as the joint. */
static const char *robot_coord_name(const pkm_robot *r, int k)
{
    static const char *const names[6] = {"platform.x",  "platform.y",  "platform.z",
                                         "platform.rx", "platform.ry", "platform.rz"};
    return r->pose_coord[k] == PKM_ROBOT_JOINT ? r->joint[r->pose_joint[k]].name
                                               : names[r->pose_coord[k]];
}

/* Walk from the assembly configuration (s at q = 0) to pose (pkm_mbs_walk): the branch of the
 * assembly configuration kept, and a pose's result independent of the pose computed before it. */
static pkm_status walk(const pkm_robot *r, pkm_mbs *s, const double *pose, int *bad_joint,
                       pkm_ctx *ctx)
{
    double qa[PKM_POSE_MAX], reached = 0.0;
    for (int k = 0; k < r->npose; k++)
        qa[k] = pose[k] - pkm_robot_assembly_value(r, r->pose_coord[k]);
    pkm_ctx local;
    pkm_ctx_clear(&local);
    const pkm_status st = pkm_mbs_walk(s, qa, 0.0, 1.0, &reached, &local); /* times: shares */
    if (st == PKM_ERR_SINGULAR) {
        const int j = most_open_joint(r, s);
        if (bad_joint != NULL) *bad_joint = j;
        return PKM_FAIL(ctx, PKM_ERR_UNREACHABLE,
                        "%s: the loops cannot close on the way to the pose (%.0f %% of the "
                        "path from the assembly configuration): joint '%s' stays open (%s)",
                        r->name, 100.0 * reached, j >= 0 ? r->joint[j].name : "-", local.msg);
    }
    if (st != PKM_OK)
        return PKM_FAIL(ctx, st, "%s: %s%s", r->name,
                        st == PKM_ERR_INVALID ? "the pose coordinates do not fix the mechanism: "
                                              : "",
                        local.msg);
    return PKM_OK;
}

pkm_status pkm_robot_solve(const pkm_robot *r, const double *pose, double R[][3][3], double p[][3],
                           int *bad_joint, pkm_ctx *ctx)
{
    if (bad_joint != NULL) *bad_joint = -1;
    for (int k = 0; k < r->npose; k++)
        if (!isfinite(pose[k]))
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: pose coordinate %s is not finite", r->name,
                            r->pose_name[k]);
    pkm_model *m = NULL;
    pkm_mbs *s = NULL;
    const double g[3] = {0, 0, 0};
    pkm_status rc = pkm_robot_build_assembly(r, &m, ctx);
    if (rc == PKM_OK) rc = pkm_mbs_create(m, g, &s, ctx);
    if (rc == PKM_OK) rc = pkm_mbs_set_singular(s, PKM_DYN_SINGULAR_IK, ctx);
    int idx[PKM_POSE_MAX];
    for (int k = 0; k < r->npose && rc == PKM_OK; k++) {
        const char *name = robot_coord_name(r, k);
        idx[k] = -1;
        for (int i = 0; i < pkm_mbs_coord_count(s) && idx[k] < 0; i++)
            if (strcmp(pkm_mbs_coord_name(s, i), name) == 0) idx[k] = i;
    }
    if (rc == PKM_OK) rc = pkm_mbs_set_driven(s, r->npose, idx, ctx);
    if (rc == PKM_OK) rc = walk(r, s, pose, bad_joint, ctx);
    for (int b = 0; b < r->nbody && rc == PKM_OK; b++)
        pkm_mbs_body_displacement(s, b, R[b], p[b]);
    pkm_mbs_destroy(&s);
    pkm_model_destroy(&m);
    return rc;
}

/* The model at pose, elastic (pkm_robot_build) or rigid (pkm_robot_build_rigid). */
static pkm_status build_at(const pkm_robot *r, const double *pose, int elastic, pkm_model **out,
                           pkm_ctx *ctx)
{
    *out = NULL;
    double(*R)[3][3] = malloc(sizeof(double[3][3]) * (size_t)r->nbody);
    double(*p)[3] = malloc(sizeof(double[3]) * (size_t)r->nbody);
    pkm_status rc = (R == NULL || p == NULL)
                        ? PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory", r->name)
                        : pkm_robot_solve(r, pose, R, p, NULL, ctx);
    if (rc == PKM_OK)
        rc = build_moved(r, (const double(*)[3][3])R, (const double(*)[3])p, elastic, out, ctx);
    free(R);
    free(p);
    return rc;
}

pkm_status pkm_robot_build(const pkm_robot *r, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    return build_at(r, pose, 1, out, ctx);
}

pkm_status pkm_robot_build_rigid(const pkm_robot *r, const double *pose, pkm_model **out,
                                 pkm_ctx *ctx)
{
    for (int k = 0; k < r->npose; k++)
        if (pose[k] != pkm_robot_assembly_value(r, r->pose_coord[k]))
            return build_at(r, pose, 0, out, ctx);
    return pkm_robot_build_assembly(r, out, ctx);
}

/* A case and its robot in one allocation: params points at it, the case inside. */
typedef struct robot_case {
    pkm_robot robot;
    pkm_case_dynamics dynamics; /* the file's, then --set */
    pkm_case c;
    const char *pose_names[PKM_POSE_MAX];
    const char *pose_units[PKM_POSE_MAX];
    const char *coord_names[PKM_POSE_MAX]; /* the rigid-body model's coordinate per pose one */
    double rigid_pose[PKM_POSE_MAX];       /* the assembly configuration's pose */
    pkm_traj_desc traj[PKM_ROBOT_MAX_TRAJ];
    char source[256];
} robot_case;

/* The dynamics block of a robot file as parameters, its friction units those of revolute or of
 * prismatic drives. */
static const pkm_param_desc robot_params_revolute[] = {
    PKM_CASE_DYNAMICS(robot_case, "N m s/rad", "rad/s"), PKM_CASE_LOAD(robot_case, "load", "load")};
static const pkm_param_desc robot_params_prismatic[] = {
    PKM_CASE_DYNAMICS(robot_case, "N s/m", "m/s"), PKM_CASE_LOAD(robot_case, "load", "load")};

static pkm_status robot_case_build(const void *params, const double *pose, pkm_model **out,
                                   pkm_ctx *ctx)
{
    return pkm_robot_build(&((const robot_case *)params)->robot, pose, out, ctx);
}

static pkm_status robot_case_build_placed(const void *params, const double (*R)[3][3],
                                          const double (*p)[3], pkm_model **out, pkm_ctx *ctx)
{
    return build_moved(&((const robot_case *)params)->robot, R, p, 1, out, ctx);
}

static pkm_status robot_case_build_rigid(const void *params, const double *pose, pkm_model **out,
                                         pkm_ctx *ctx)
{
    const robot_case *rc = params;
    *out = NULL;
    const pkm_status st = pkm_case_params_check(&rc->c, params, ctx);
    return st != PKM_OK ? st : pkm_robot_build_rigid(&rc->robot, pose, out, ctx);
}

/* The time domain's entries of the case: with an actuated joint, the rigid-body model driven by
 * the platform's coordinates from the assembly configuration, and the file's trajectories. */
static void robot_case_dynamics(robot_case *rc)
{
    const pkm_robot *r = &rc->robot;
    int actuated = 0, prismatic = 0;
    for (int j = 0; j < r->njoint; j++)
        if (r->joint[j].d.actuated) {
            actuated = 1;
            prismatic = prismatic || r->joint[j].d.type == PKM_JOINT_PRISMATIC;
        }
    for (int k = 0; k < r->npose; k++) {
        rc->coord_names[k] = robot_coord_name(r, k);
        rc->rigid_pose[k] = pkm_robot_assembly_value(r, r->pose_coord[k]);
    }
    for (int k = 0; k < r->ntraj; k++)
        rc->traj[k] = (pkm_traj_desc){r->traj[k].name, r->traj[k].description, r->traj[k].duration,
                                      r->traj[k].coord};
    rc->c.params = prismatic ? robot_params_prismatic : robot_params_revolute;
    rc->c.nparams = (int)(sizeof(robot_params_revolute) / sizeof(robot_params_revolute[0]));
    rc->c.dynamics_offset = offsetof(robot_case, dynamics);
    rc->c.ntraj = r->ntraj;
    rc->c.traj = rc->traj;
    if (!actuated) return;
    rc->c.analyses |= PKM_CASE_DYNAMICS;
    rc->c.build_rigid = robot_case_build_rigid;
    rc->c.rigid_pose = rc->rigid_pose;
    /* Joints' coordinates are driven as such (PKM_MOTION_POSE: measured from the assembly
     * configuration, where they are 0); the platform's through the inverse kinematics. */
    if (r->npose > 0 && r->pose_coord[0] == PKM_ROBOT_JOINT) {
        rc->c.ndriven = r->npose;
        rc->c.driven_names = rc->coord_names;
        return;
    }
    rc->c.platform_names = rc->coord_names;
    rc->c.build_placed = robot_case_build_placed;
}

/* A beam, a spring or a joint's stiffness: something for the modes to bend (rigid bodies on free
 * joints are a mechanism, with no elastic model). */
static int robot_is_elastic(const pkm_robot *r)
{
    for (int b = 0; b < r->nbody; b++)
        if (r->body[b].kind == PKM_BODY_BEAM) return 1;
    for (int j = 0; j < r->njoint; j++)
        for (int k = 0; k < PKM_JOINT_MAX_FREE; k++)
            if (r->joint[j].d.stiffness[k] != 0.0) return 1;
    return r->nspring > 0;
}

pkm_status pkm_robot_case_create(const pkm_robot *r, const char *source, const pkm_case **c,
                                 void **params, pkm_ctx *ctx)
{
    *c = NULL;
    *params = NULL;
    robot_case *rc = calloc(1, sizeof(*rc));
    if (rc == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory", r->name);
    rc->robot = *r;
    rc->dynamics = r->dynamics;
    snprintf(rc->source, sizeof(rc->source), "%s", source);
    for (int k = 0; k < r->npose; k++) {
        rc->pose_names[k] = rc->robot.pose_name[k];
        rc->pose_units[k] = pkm_robot_pose_unit(r, k);
    }
    rc->c = (pkm_case){.name = rc->robot.name,
                       .description = rc->robot.description,
                       .npose = r->npose,
                       .pose_names = rc->pose_names,
                       .pose_units = rc->pose_units,
                       .home = rc->robot.home,
                       .params_size = sizeof(*rc),
                       .yaml = "",
                       .yaml_name = rc->source,
                       .formulation = r->formulation,
                       .build = robot_case_build,
                       .analyses = robot_is_elastic(r) ? PKM_CASE_MODAL : 0};
    robot_case_dynamics(rc);
    *c = &rc->c;
    *params = rc;
    return PKM_OK;
}
