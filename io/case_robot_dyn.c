/* io/case_robot_dyn.c: the time-domain blocks of a robot file (docs/robot-files.md, "Dynamics"):
 * gravity, friction, lumped masses and named trajectories, each fault at its FILE:LINE:COLUMN.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "io/case_robot_impl.h"

#include <stdio.h>
#include <string.h>

/* The index of the joint (body: 1) named by scalar v, or an error at v naming what refers to it. */
static pkm_status named(robot_reader *rd, const yaml_node_t *v, int body, const char *what,
                        int *index)
{
    const pkm_robot *r = rd->r;
    const char *text = NULL;
    pkm_status rc = robot_text(rd, v, body ? "body" : "joint", &text);
    *index = -1;
    for (int i = 0; i < (body ? r->nbody : r->njoint) && rc == PKM_OK && *index < 0; i++)
        if (strcmp(body ? r->body[i].name : r->joint[i].name, text) == 0) *index = i;
    if (rc == PKM_OK && *index < 0)
        rc = robot_fail(rd, v, "%s: no %s '%s'", what, body ? "body" : "joint", text);
    return rc;
}

/* friction: {model, kc, kv, ks, vs, delta, rp, rn, rb, joints}; kv and vs in the units of the
 * actuated joints (revolute: N m s/rad, rad/s; prismatic: N s/m, m/s). */
static pkm_status read_friction(robot_reader *rd, const yaml_node_t *n, int prismatic)
{
    static const char *const keys[] = {"model", "kc", "kv", "ks",     "vs", "delta",
                                       "rp",    "rn", "rb", "joints", NULL};
    static const char *const models[] = {"none", "coulomb-viscous", "stribeck", NULL};
    static const char *const joints[] = {"all", "actuated", NULL};
    pkm_case_dynamics *d = &rd->r->dynamics;
    double *dst[8] = {&d->kc, &d->kv, &d->ks, &d->vs, &d->delta, &d->rp, &d->rn, &d->rb};
    const char *units[8] = {
        "", prismatic ? "N s/m" : "N m s/rad", "", prismatic ? "m/s" : "rad/s", "", "m", "m", "m"};
    pkm_status rc = robot_keys(rd, n, "friction", keys);
    yaml_node_t *v = NULL;
    int k = 0;
    if (rc == PKM_OK && (v = robot_get(rd, n, "model")) != NULL) {
        rc = robot_choice(rd, v, "friction model", models, &k);
        d->friction_model = (unsigned)k;
    }
    if (rc == PKM_OK && (v = robot_get(rd, n, "joints")) != NULL) {
        rc = robot_choice(rd, v, "friction joints", joints, &k);
        d->friction_joints = (unsigned)k;
    }
    for (int i = 0; i < 8 && rc == PKM_OK; i++)
        if ((v = robot_get(rd, n, keys[i + 1])) != NULL)
            rc = robot_quantity(rd, v, units[i], dst[i]);
    return rc;
}

/* load: {force: [Fx, Fy, Fz], point: [x, y, z]}: a constant force on the platform (N, global
 * axes) at its point (m, assembly configuration), pkm_case_dynamics.load_force. */
static pkm_status read_load(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"force", "point", NULL};
    pkm_case_dynamics *d = &rd->r->dynamics;
    pkm_status rc = robot_keys(rd, n, "load", keys);
    yaml_node_t *v = NULL;
    if (rc == PKM_OK && (v = robot_get(rd, n, "force")) != NULL)
        rc = robot_vector(rd, v, "N", 3, d->load_force);
    if (rc == PKM_OK && (v = robot_get(rd, n, "point")) != NULL)
        rc = robot_vector(rd, v, "m", 3, d->load_point);
    return rc;
}

/* masses: [{name, joint, body, mass, inertia}]: a point mass at a joint's point carried by one
 * of its bodies, with an optional inertia about the point ([Jxx, Jyy, Jzz] or six components). */
static pkm_status read_masses(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "joint", "body", "mass", "inertia", NULL};
    pkm_robot *r = rd->r;
    yaml_node_item_t *it = NULL;
    int count = 0;
    pkm_status rc = robot_list(rd, n, "masses", PKM_ROBOT_MAX_MASSES, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *mn = yaml_document_get_node(&rd->doc, it[i]);
        pkm_robot_mass *l = &r->mass[i];
        yaml_node_t *v = NULL;
        const char *text = NULL;
        rc = robot_keys(rd, mn, "mass", keys);
        if (rc == PKM_OK) rc = robot_need(rd, mn, "name", "mass", &v);
        if (rc == PKM_OK) rc = robot_name(rd, v, "mass name", l->name);
        if (rc == PKM_OK) rc = robot_need(rd, mn, "joint", "mass", &v);
        if (rc == PKM_OK) rc = named(rd, v, 0, "mass", &l->joint);
        if (rc == PKM_OK) rc = robot_need(rd, mn, "body", "mass", &v);
        if (rc == PKM_OK) rc = robot_text(rd, v, "body", &text);
        if (rc == PKM_OK) {
            const pkm_joint_desc *jd = &r->joint[l->joint].d;
            const int a = jd->body_a, b = jd->body_b;
            l->side = (a != PKM_GROUND && strcmp(r->body[a].name, text) == 0)   ? 0
                      : (b != PKM_GROUND && strcmp(r->body[b].name, text) == 0) ? 1
                                                                                : -1;
            if (l->side < 0)
                rc = robot_fail(rd, v, "mass '%s': '%s' is not a body of joint '%s'", l->name, text,
                                r->joint[l->joint].name);
        }
        if (rc == PKM_OK) rc = robot_need(rd, mn, "mass", "mass", &v);
        if (rc == PKM_OK) rc = robot_quantity(rd, v, "kg", &l->mass);
        if (rc == PKM_OK && (v = robot_get(rd, mn, "inertia")) != NULL)
            rc = robot_inertia(rd, v, l->inertia);
        r->nmass = i + 1;
    }
    return rc;
}

/* One pose coordinate's motion, in the coordinate's unit u: {quintic: [q0, q1, T]} (rest to rest,
 * held after T), {sine: [q0, A, f, phase]} (q0 + A sin(2 pi f t + phase)) or {poly2: [q0, v0, a]}
 * (q0 + v0 t + a t^2 / 2: a constant acceleration, Guo et al. 2024's drives). */
static pkm_status read_coord_motion(robot_reader *rd, const yaml_node_t *n, const char *u,
                                    pkm_traj_coord *c)
{
    static const char *const keys[] = {"quintic", "sine", "poly2", NULL};
    static const int counts[3] = {3, 4, 3};
    static const pkm_traj_kind kinds[3] = {PKM_TRAJ_QUINTIC, PKM_TRAJ_SINE, PKM_TRAJ_POLY2};
    const int m = strcmp(u, "m") == 0;
    const char *units[3][4] = {{u, u, "s", ""},
                               {u, u, "Hz", "rad"},
                               {u, m ? "m/s" : "rad/s", m ? "m/s^2" : "rad/s^2", ""}};
    pkm_status rc = robot_keys(rd, n, "motion", keys);
    yaml_node_t *v = NULL;
    yaml_node_item_t *it = NULL;
    int count = 0, k = 0;
    while (rc == PKM_OK && k < 3 && (v = robot_get(rd, n, keys[k])) == NULL)
        k++;
    if (rc == PKM_OK && v == NULL)
        return robot_fail(rd, n,
                          "motion: expected quintic: [q0, q1, T], sine: [q0, A, f, phase] or "
                          "poly2: [q0, v0, a]");
    if (rc == PKM_OK) rc = robot_items(rd, v, keys[k], &it, &count);
    if (rc == PKM_OK && count != counts[k])
        return robot_fail(rd, v, "%s: expected %d values", keys[k], counts[k]);
    *c = (pkm_traj_coord){.kind = kinds[k]};
    for (int i = 0; i < count && rc == PKM_OK; i++)
        rc = robot_quantity(rd, yaml_document_get_node(&rd->doc, it[i]), units[k][i], &c->c[i]);
    if (rc == PKM_OK && k == 0 && !(c->c[2] > 0.0))
        rc = robot_fail(rd, v, "quintic: the time T must be > 0");
    return rc;
}

/* trajectories: [{name, description, duration, motion: {COORD: ...}}]; a pose coordinate the
 * motion does not name is held at its home value. */
static pkm_status read_trajectories(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "description", "duration", "motion", NULL};
    pkm_robot *r = rd->r;
    yaml_node_item_t *it = NULL;
    int count = 0;
    pkm_status rc = robot_list(rd, n, "trajectories", PKM_ROBOT_MAX_TRAJ, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *tn = yaml_document_get_node(&rd->doc, it[i]);
        pkm_robot_traj *t = &r->traj[i];
        yaml_node_t *v = NULL, *motion = NULL;
        const char *text = "";
        rc = robot_keys(rd, tn, "trajectory", keys);
        if (rc == PKM_OK) rc = robot_need(rd, tn, "name", "trajectory", &v);
        if (rc == PKM_OK) rc = robot_name(rd, v, "trajectory name", t->name);
        for (int k = 0; k < i && rc == PKM_OK; k++)
            if (strcmp(r->traj[k].name, t->name) == 0)
                rc = robot_fail(rd, v, "trajectory '%s' given twice", t->name);
        if (rc == PKM_OK && (v = robot_get(rd, tn, "description")) != NULL)
            rc = robot_text(rd, v, "description", &text);
        snprintf(t->description, sizeof(t->description), "%s", text);
        if (rc == PKM_OK) rc = robot_need(rd, tn, "duration", "trajectory", &v);
        if (rc == PKM_OK) rc = robot_quantity(rd, v, "s", &t->duration);
        if (rc == PKM_OK && !(t->duration > 0.0))
            rc = robot_fail(rd, v, "trajectory '%s': the duration must be > 0", t->name);
        if (rc == PKM_OK) rc = robot_need(rd, tn, "motion", "trajectory", &motion);
        const char *names[PKM_POSE_MAX + 1] = {NULL};
        for (int k = 0; k < r->npose; k++)
            names[k] = r->pose_name[k];
        if (rc == PKM_OK) rc = robot_keys(rd, motion, "motion", names);
        for (int k = 0; k < r->npose && rc == PKM_OK; k++) {
            t->coord[k] = (pkm_traj_coord){PKM_TRAJ_QUINTIC, {r->home[k], r->home[k], 1.0, 0.0}};
            if ((v = robot_get(rd, motion, r->pose_name[k])) != NULL)
                rc = read_coord_motion(rd, v, pkm_robot_pose_unit(r, k), &t->coord[k]);
        }
        r->ntraj = i + 1;
    }
    return rc;
}

/* springs: [{joint, axis, k, kind}]: a spring of the elastic model on a named axis of a joint's
 * free motions (kind torsion, N m/rad, the default; or linear, N/m). */
static pkm_status read_springs(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"joint", "axis", "k", "kind", NULL};
    static const char *const kinds[] = {"torsion", "linear", NULL};
    pkm_robot *r = rd->r;
    yaml_node_item_t *it = NULL;
    int count = 0;
    pkm_status rc = robot_list(rd, n, "springs", PKM_ROBOT_MAX_EXTRA, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *sn = yaml_document_get_node(&rd->doc, it[i]);
        pkm_robot_spring *sp = &r->spring[i];
        yaml_node_t *v = NULL;
        int kind = 0;
        rc = robot_keys(rd, sn, "spring", keys);
        if (rc == PKM_OK) rc = robot_need(rd, sn, "joint", "spring", &v);
        if (rc == PKM_OK) rc = named(rd, v, 0, "spring", &sp->joint);
        if (rc == PKM_OK && (v = robot_get(rd, sn, "kind")) != NULL)
            rc = robot_choice(rd, v, "spring kind", kinds, &kind);
        sp->kind = kind == 0 ? PKM_SPRING_TORSION : PKM_SPRING_LINEAR;
        if (rc == PKM_OK) rc = robot_need(rd, sn, "axis", "spring", &v);
        if (rc == PKM_OK) rc = robot_vector(rd, v, "", 3, sp->axis);
        if (rc == PKM_OK) rc = robot_need(rd, sn, "k", "spring", &v);
        if (rc == PKM_OK) rc = robot_quantity(rd, v, kind == 0 ? "N m/rad" : "N/m", &sp->k);
        r->nspring = i + 1;
    }
    return rc;
}

/* contacts: [{name, body, point, normal}]: a point of a body held in a plane fixed in the
 * ground (a higher pair linearised at each pose; the nodal formulation only). */
static pkm_status read_contacts(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "body", "point", "normal", NULL};
    pkm_robot *r = rd->r;
    yaml_node_item_t *it = NULL;
    int count = 0;
    pkm_status rc = robot_list(rd, n, "contacts", PKM_ROBOT_MAX_EXTRA, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *cn = yaml_document_get_node(&rd->doc, it[i]);
        pkm_robot_contact *k = &r->contact[i];
        yaml_node_t *v = NULL;
        rc = robot_keys(rd, cn, "contact", keys);
        if (rc == PKM_OK) rc = robot_need(rd, cn, "name", "contact", &v);
        if (rc == PKM_OK) rc = robot_name(rd, v, "contact name", k->name);
        if (rc == PKM_OK) rc = robot_need(rd, cn, "body", "contact", &v);
        if (rc == PKM_OK) rc = named(rd, v, 1, "contact", &k->body);
        if (rc == PKM_OK) rc = robot_need(rd, cn, "point", "contact", &v);
        if (rc == PKM_OK) rc = robot_vector(rd, v, "m", 3, k->point);
        if (rc == PKM_OK) rc = robot_need(rd, cn, "normal", "contact", &v);
        if (rc == PKM_OK) rc = robot_vector(rd, v, "", 3, k->normal);
        r->ncontact = i + 1;
    }
    return rc;
}

pkm_status robot_read_dynamics(robot_reader *rd, const yaml_node_t *root)
{
    pkm_robot *r = rd->r;
    pkm_robot_dynamics_defaults(r);
    int prismatic = 0;
    for (int j = 0; j < r->njoint; j++)
        prismatic =
            prismatic || (r->joint[j].d.actuated && r->joint[j].d.type == PKM_JOINT_PRISMATIC);
    yaml_node_t *v = NULL;
    pkm_status rc = PKM_OK;
    if ((v = robot_get(rd, root, "gravity")) != NULL)
        rc = robot_vector(rd, v, "m/s^2", 3, r->dynamics.gravity);
    if (rc == PKM_OK && (v = robot_get(rd, root, "friction")) != NULL)
        rc = read_friction(rd, v, prismatic);
    if (rc == PKM_OK && (v = robot_get(rd, root, "load")) != NULL) rc = read_load(rd, v);
    if (rc == PKM_OK && (v = robot_get(rd, root, "masses")) != NULL) rc = read_masses(rd, v);
    if (rc == PKM_OK && (v = robot_get(rd, root, "springs")) != NULL) rc = read_springs(rd, v);
    if (rc == PKM_OK && (v = robot_get(rd, root, "contacts")) != NULL) rc = read_contacts(rd, v);
    if (rc == PKM_OK && (v = robot_get(rd, root, "trajectories")) != NULL)
        rc = read_trajectories(rd, v);
    return rc;
}
