/* io/case_robot.c: robot files, case files that describe a mechanism's topology (format in
 * docs/robot-files.md, the description in include/pkm/robot.h). Read as a libyaml document so
 * that every fault, of syntax or of the mechanism (a joint on a missing body, a body without a
 * joint, a loop that does not close at the home pose), is reported at its FILE:LINE:COLUMN.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/core_impl.h"
#include "io/case_file_impl.h"
#include "io/case_robot_impl.h"
#include "pkm/casefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static yaml_node_t *item(robot_reader *rd, const yaml_node_item_t *it, int i)
{
    return yaml_document_get_node(&rd->doc, it[i]);
}

/* materials: {NAME: {E, G, rho}}, sections: {NAME: {A, Iy, Iz, I0, Ip}}, or the same mapping
 * inline where a beam names one. */
static pkm_status read_material(robot_reader *rd, const yaml_node_t *n, pkm_material *m)
{
    static const char *const keys[] = {"E", "G", "rho", NULL};
    static const char *const units[] = {"Pa", "Pa", "kg/m^3"};
    double *dst[3] = {&m->E, &m->G, &m->rho};
    pkm_status rc = robot_keys(rd, n, "material", keys);
    for (int k = 0; k < 3 && rc == PKM_OK; k++) {
        yaml_node_t *v = NULL;
        rc = robot_need(rd, n, keys[k], "material", &v);
        if (rc == PKM_OK) rc = robot_quantity(rd, v, units[k], dst[k]);
    }
    return rc;
}

static pkm_status read_section(robot_reader *rd, const yaml_node_t *n, pkm_section *s)
{
    static const char *const keys[] = {"A", "Iy", "Iz", "I0", "Ip", NULL};
    double *dst[5] = {&s->A, &s->Iy, &s->Iz, &s->I0, &s->Ip};
    pkm_status rc = robot_keys(rd, n, "section", keys);
    for (int k = 0; k < 5 && rc == PKM_OK; k++) {
        yaml_node_t *v = NULL;
        rc = robot_need(rd, n, keys[k], "section", &v);
        if (rc == PKM_OK) rc = robot_quantity(rd, v, k == 0 ? "m^2" : "m^4", dst[k]);
    }
    return rc;
}

/* The named materials (sections: 0) or sections (1) of the mapping n. */
static pkm_status read_library(robot_reader *rd, const yaml_node_t *n, int sections)
{
    const char *what = sections ? "sections" : "materials";
    if (n->type != YAML_MAPPING_NODE)
        return robot_fail(rd, n, "%s: expected a mapping of names", what);
    int *count = sections ? &rd->nsec : &rd->nmat;
    for (const yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
         p++) {
        if (*count == ROBOT_MAX_NAMED)
            return robot_fail(rd, n, "%s: at most %d", what, ROBOT_MAX_NAMED);
        const yaml_node_t *k = yaml_document_get_node(&rd->doc, p->key);
        char *name = sections ? rd->sec_name[*count] : rd->mat_name[*count];
        pkm_status rc = robot_name(rd, k, what, name);
        for (int i = 0; i < *count && rc == PKM_OK; i++)
            if (strcmp(sections ? rd->sec_name[i] : rd->mat_name[i], name) == 0)
                rc = robot_fail(rd, k, "%s: '%s' given twice", what, name);
        const yaml_node_t *v = yaml_document_get_node(&rd->doc, p->value);
        if (rc == PKM_OK)
            rc = sections ? read_section(rd, v, &rd->sec[*count])
                          : read_material(rd, v, &rd->mat[*count]);
        if (rc != PKM_OK) return rc;
        (*count)++;
    }
    return PKM_OK;
}

/* A beam's material or section: a name of the file's list, or the mapping itself. */
static pkm_status read_ref(robot_reader *rd, const yaml_node_t *n, int sections, void *out)
{
    if (n->type == YAML_MAPPING_NODE)
        return sections ? read_section(rd, n, out) : read_material(rd, n, out);
    const char *s = NULL;
    pkm_status rc = robot_text(rd, n, sections ? "section" : "material", &s);
    const int count = sections ? rd->nsec : rd->nmat;
    for (int i = 0; i < count && rc == PKM_OK; i++)
        if (strcmp(sections ? rd->sec_name[i] : rd->mat_name[i], s) == 0) {
            if (sections)
                *(pkm_section *)out = rd->sec[i];
            else
                *(pkm_material *)out = rd->mat[i];
            return PKM_OK;
        }
    return rc != PKM_OK ? rc
                        : robot_fail(rd, n, "no %s named '%s' (declare it under '%s')",
                                     sections ? "section" : "material", s,
                                     sections ? "sections" : "materials");
}

/* beam: {points, elements, section, material, zref, mass, element} */
static pkm_status read_beam(robot_reader *rd, const yaml_node_t *n, pkm_robot_body *b)
{
    static const char *const keys[] = {"points", "elements", "section", "material",
                                       "zref",   "mass",     "element", NULL};
    static const char *const masses[] = {"rotary", "translational", NULL};
    static const char *const elements[] = {"cubic", "quintic", NULL};
    b->kind = PKM_BODY_BEAM;
    yaml_node_t *v = NULL;
    yaml_node_item_t *it = NULL;
    pkm_status rc = robot_keys(rd, n, "beam", keys);
    if (rc == PKM_OK) rc = robot_need(rd, n, "points", "beam", &v);
    if (rc == PKM_OK) rc = robot_items(rd, v, "points", &it, &b->npoints);
    if (rc == PKM_OK && (b->npoints < 2 || b->npoints > PKM_ROBOT_MAX_POINTS))
        rc = robot_fail(rd, v, "a beam has 2 to %d points, not %d", PKM_ROBOT_MAX_POINTS,
                        b->npoints);
    for (int i = 0; i < b->npoints && rc == PKM_OK; i++)
        rc = robot_vector(rd, item(rd, it, i), "m", 3, b->points[i]);
    for (int i = 0; i + 1 < b->npoints; i++)
        b->nelem[i] = 1;
    if (rc == PKM_OK && (v = robot_get(rd, n, "elements")) != NULL) {
        int count = 0;
        if (v->type == YAML_SCALAR_NODE) {
            rc = robot_int(rd, v, 1, 4096, &b->nelem[0]);
            for (int i = 1; i + 1 < b->npoints; i++)
                b->nelem[i] = b->nelem[0];
        } else if ((rc = robot_items(rd, v, "elements", &it, &count)) == PKM_OK) {
            if (count != b->npoints - 1)
                rc = robot_fail(rd, v, "elements: one count per segment (%d), got %d",
                                b->npoints - 1, count);
            for (int i = 0; i < count && rc == PKM_OK; i++)
                rc = robot_int(rd, item(rd, it, i), 1, 4096, &b->nelem[i]);
        }
    }
    if (rc == PKM_OK) rc = robot_need(rd, n, "section", "beam", &v);
    if (rc == PKM_OK) rc = read_ref(rd, v, 1, &b->section);
    if (rc == PKM_OK) rc = robot_need(rd, n, "material", "beam", &v);
    if (rc == PKM_OK) rc = read_ref(rd, v, 0, &b->material);
    if (rc == PKM_OK) rc = robot_need(rd, n, "zref", "beam", &v);
    if (rc == PKM_OK) rc = robot_vector(rd, v, "", 3, b->zref);
    int k = 0;
    if (rc == PKM_OK && (v = robot_get(rd, n, "mass")) != NULL)
        rc = robot_choice(rd, v, "mass", masses, &k);
    b->mass_flags = k == 0 ? PKM_FEM_ROTARY_INERTIA : 0;
    k = 0;
    if (rc == PKM_OK && (v = robot_get(rd, n, "element")) != NULL)
        rc = robot_choice(rd, v, "element", elements, &k);
    b->element = k == 0 ? PKM_BEAM_CUBIC : PKM_BEAM_QUINTIC;
    return rc;
}

/* rigid: {origin, mass, com, inertia: [Jxx, Jyy, Jzz] or [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]} */
static pkm_status read_rigid(robot_reader *rd, const yaml_node_t *n, pkm_robot_body *b)
{
    static const char *const keys[] = {"origin", "mass", "com", "inertia", NULL};
    b->kind = PKM_BODY_RIGID;
    yaml_node_t *v = NULL;
    pkm_status rc = robot_keys(rd, n, "rigid", keys);
    if (rc == PKM_OK) rc = robot_need(rd, n, "origin", "rigid", &v);
    if (rc == PKM_OK) rc = robot_vector(rd, v, "m", 3, b->origin);
    memcpy(b->com, b->origin, sizeof(b->com));
    if (rc == PKM_OK && (v = robot_get(rd, n, "mass")) != NULL)
        rc = robot_quantity(rd, v, "kg", &b->mass);
    if (rc == PKM_OK && (v = robot_get(rd, n, "com")) != NULL)
        rc = robot_vector(rd, v, "m", 3, b->com);
    if (rc == PKM_OK && (v = robot_get(rd, n, "inertia")) != NULL)
        rc = robot_inertia(rd, v, b->inertia);
    return rc;
}

/* bodies: [{name, beam: {...}} or {name, rigid: {...}}] */
static pkm_status read_bodies(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "beam", "rigid", NULL};
    yaml_node_item_t *it = NULL;
    int count = 0;
    pkm_status rc = robot_list(rd, n, "bodies", PKM_ROBOT_MAX_BODIES, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *b = item(rd, it, i);
        pkm_robot_body *body = &rd->r->body[i];
        yaml_node_t *v = NULL, *beam = NULL, *rigid = NULL;
        rd->body_node[i] = b;
        rc = robot_keys(rd, b, "body", keys);
        if (rc == PKM_OK) rc = robot_need(rd, b, "name", "body", &v);
        if (rc == PKM_OK) rc = robot_name(rd, v, "body name", body->name);
        if (rc == PKM_OK && strcmp(body->name, "ground") == 0)
            rc = robot_fail(rd, v, "'ground' names the fixed base, not a body");
        for (int k = 0; k < i && rc == PKM_OK; k++)
            if (strcmp(rd->r->body[k].name, body->name) == 0)
                rc = robot_fail(rd, v, "body '%s' given twice", body->name);
        if (rc == PKM_OK) {
            beam = robot_get(rd, b, "beam");
            rigid = robot_get(rd, b, "rigid");
            if ((beam == NULL) == (rigid == NULL))
                rc = robot_fail(rd, b, "body '%s': give either 'beam' or 'rigid'", body->name);
        }
        if (rc == PKM_OK)
            rc = beam != NULL ? read_beam(rd, beam, body) : read_rigid(rd, rigid, body);
        rd->r->nbody = i + 1;
    }
    return rc;
}

/* A joint's body: "ground" or a body's name. */
static pkm_status body_ref(robot_reader *rd, const yaml_node_t *n, const char *joint, int *b)
{
    const char *s = NULL;
    pkm_status rc = robot_text(rd, n, "body", &s);
    if (rc != PKM_OK) return rc;
    if (strcmp(s, "ground") == 0) {
        *b = PKM_GROUND;
        return PKM_OK;
    }
    for (int i = 0; i < rd->r->nbody; i++)
        if (strcmp(rd->r->body[i].name, s) == 0) {
            *b = i;
            return PKM_OK;
        }
    return robot_fail(rd, n, "joint '%s': no body named '%s'", joint, s);
}

/* The flags and springs of a joint: actuated, locked (default: actuated), cut, stiffness. */
static pkm_status read_joint_options(robot_reader *rd, const yaml_node_t *n, pkm_robot_joint *j)
{
    yaml_node_t *v = NULL;
    pkm_status rc = PKM_OK;
    if ((v = robot_get(rd, n, "actuated")) != NULL) rc = robot_bool(rd, v, &j->d.actuated);
    j->locked = j->d.actuated;
    if (rc == PKM_OK && (v = robot_get(rd, n, "locked")) != NULL)
        rc = robot_bool(rd, v, &j->locked);
    if (rc == PKM_OK && (v = robot_get(rd, n, "cut")) != NULL) rc = robot_bool(rd, v, &j->d.cut);
    if (rc == PKM_OK && (v = robot_get(rd, n, "pitch")) != NULL)
        rc = robot_quantity(rd, v, "m", &j->d.pitch);
    const char *unit = j->d.type == PKM_JOINT_PRISMATIC ? "N/m" : "N m/rad";
    if (rc == PKM_OK && (v = robot_get(rd, n, "stiffness")) != NULL) {
        yaml_node_item_t *it = NULL;
        int nfree = 0;
        if (v->type != YAML_SEQUENCE_NODE)
            rc = robot_quantity(rd, v, unit, &j->d.stiffness[0]);
        else if ((rc = robot_list(rd, v, "stiffness", PKM_JOINT_MAX_FREE, &it, &nfree)) == PKM_OK)
            rc = robot_vector(rd, v, unit, nfree, j->d.stiffness);
    }
    if (rc == PKM_OK && (v = robot_get(rd, n, "rotor_inertia")) != NULL)
        rc = robot_quantity(rd, v, j->d.type == PKM_JOINT_PRISMATIC ? "kg" : "kg m^2",
                            &j->d.rotor_inertia[0]);
    return rc;
}

/* joints: [{name, type, bodies: [A, B], point, axis, axis2, pitch, actuated, locked, cut,
 * stiffness, rotor_inertia}] */
static pkm_status read_joints(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"name",      "type",          "bodies",   "point",  "axis",
                                       "axis2",     "pitch",         "actuated", "locked", "cut",
                                       "stiffness", "rotor_inertia", NULL};
    static const char *const types[] = {"clamped",   "R",         "P",        "S",
                                        "U",         "H",         "revolute", "prismatic",
                                        "spherical", "universal", "helical",  NULL};
    yaml_node_item_t *it = NULL, *bi = NULL;
    int count = 0, nb = 0, t = 0;
    pkm_status rc = robot_list(rd, n, "joints", PKM_ROBOT_MAX_JOINTS, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *jn = item(rd, it, i);
        pkm_robot_joint *j = &rd->r->joint[i];
        yaml_node_t *v = NULL;
        rd->joint_node[i] = jn;
        rc = robot_keys(rd, jn, "joint", keys);
        if (rc == PKM_OK) rc = robot_need(rd, jn, "name", "joint", &v);
        if (rc == PKM_OK) rc = robot_name(rd, v, "joint name", j->name);
        for (int k = 0; k < i && rc == PKM_OK; k++)
            if (strcmp(rd->r->joint[k].name, j->name) == 0)
                rc = robot_fail(rd, v, "joint '%s' given twice", j->name);
        if (rc == PKM_OK) rc = robot_need(rd, jn, "type", "joint", &v);
        if (rc == PKM_OK) rc = robot_choice(rd, v, "joint type", types, &t);
        j->d.type = (pkm_joint_type)(t > 5 ? t - 5 : t);
        if (rc == PKM_OK) rc = robot_need(rd, jn, "bodies", "joint", &v);
        if (rc == PKM_OK) rc = robot_items(rd, v, "bodies", &bi, &nb);
        if (rc == PKM_OK && nb != 2)
            rc = robot_fail(rd, v, "joint '%s': bodies: two names, got %d", j->name, nb);
        if (rc == PKM_OK) rc = body_ref(rd, item(rd, bi, 0), j->name, &j->d.body_a);
        if (rc == PKM_OK) rc = body_ref(rd, item(rd, bi, 1), j->name, &j->d.body_b);
        if (rc == PKM_OK) rc = robot_need(rd, jn, "point", "joint", &v);
        if (rc == PKM_OK) rc = robot_vector(rd, v, "m", 3, j->d.point);
        if (rc == PKM_OK && (v = robot_get(rd, jn, "axis")) != NULL)
            rc = robot_vector(rd, v, "", 3, j->d.axis);
        if (rc == PKM_OK && (v = robot_get(rd, jn, "axis2")) != NULL)
            rc = robot_vector(rd, v, "", 3, j->d.axis2);
        if (rc == PKM_OK) rc = read_joint_options(rd, jn, j);
        rd->r->njoint = i + 1;
    }
    return rc;
}

/* A pose coordinate's joint: an actuated revolute or prismatic joint of the file (its coordinate
 * is the drive's). */
static pkm_status pose_joint(robot_reader *rd, const yaml_node_t *v, int *index)
{
    const pkm_robot *r = rd->r;
    const char *s = NULL;
    pkm_status rc = robot_text(rd, v, "joint", &s);
    *index = -1;
    for (int j = 0; j < r->njoint && rc == PKM_OK && *index < 0; j++)
        if (strcmp(r->joint[j].name, s) == 0) *index = j;
    if (rc != PKM_OK) return rc;
    if (*index < 0) return robot_fail(rd, v, "pose: no joint '%s'", s);
    const pkm_joint_desc *d = &r->joint[*index].d;
    if (!d->actuated || (d->type != PKM_JOINT_REVOLUTE && d->type != PKM_JOINT_PRISMATIC))
        return robot_fail(rd, v, "pose: joint '%s' is not an actuated R or P joint", s);
    return PKM_OK;
}

/* pose: [{name, platform: x|y|z|rx|ry|rz, home}] or [{name, joint, home}], not both kinds. */
static pkm_status read_pose(robot_reader *rd, const yaml_node_t *n)
{
    static const char *const keys[] = {"name", "platform", "joint", "home", NULL};
    static const char *const coords[] = {"x", "y", "z", "rx", "ry", "rz", NULL};
    pkm_robot *r = rd->r;
    yaml_node_item_t *it = NULL;
    int count = 0;
    pkm_status rc = robot_list(rd, n, "pose", 6, &it, &count);
    for (int i = 0; i < count && rc == PKM_OK; i++) {
        const yaml_node_t *pn = item(rd, it, i);
        yaml_node_t *v = NULL, *pv = NULL, *jv = NULL;
        int k = PKM_ROBOT_JOINT;
        rc = robot_keys(rd, pn, "pose coordinate", keys);
        if (rc == PKM_OK) rc = robot_need(rd, pn, "name", "pose coordinate", &v);
        if (rc == PKM_OK) rc = robot_name(rd, v, "pose coordinate name", r->pose_name[i]);
        if (rc == PKM_OK) {
            pv = robot_get(rd, pn, "platform");
            jv = robot_get(rd, pn, "joint");
            if ((pv == NULL) == (jv == NULL))
                rc = robot_fail(rd, pn, "pose coordinate '%s': give either 'platform' or 'joint'",
                                r->pose_name[i]);
        }
        if (rc == PKM_OK && i > 0 && (jv != NULL) != (r->pose_coord[0] == PKM_ROBOT_JOINT))
            rc = robot_fail(rd, pn,
                            "pose coordinate '%s': the pose names either platform coordinates "
                            "or joints, not both",
                            r->pose_name[i]);
        if (rc == PKM_OK && pv != NULL)
            rc = robot_choice(rd, pv, "platform coordinate", coords, &k);
        if (rc == PKM_OK && pv != NULL && r->platform < 0)
            rc = robot_fail(rd, pv, "pose coordinate '%s' names the platform's %s: give 'platform'",
                            r->pose_name[i], coords[k]);
        if (rc == PKM_OK && jv != NULL) rc = pose_joint(rd, jv, &r->pose_joint[i]);
        for (int m = 0; m < i && rc == PKM_OK; m++)
            if ((int)r->pose_coord[m] == k &&
                (k != PKM_ROBOT_JOINT || r->pose_joint[m] == r->pose_joint[i]))
                rc = robot_fail(rd, pv != NULL ? pv : jv, "%s '%s' set twice",
                                pv != NULL ? "platform coordinate" : "joint",
                                pv != NULL ? coords[k] : r->joint[r->pose_joint[i]].name);
        r->pose_coord[i] = (pkm_robot_coord)k;
        if (rc == PKM_OK) r->home[i] = pkm_robot_assembly_value(r, r->pose_coord[i]);
        if (rc == PKM_OK && (v = robot_get(rd, pn, "home")) != NULL)
            rc = robot_quantity(rd, v, pkm_robot_pose_unit(r, i), &r->home[i]);
        r->npose = i + 1;
    }
    return rc;
}

/* Every body has a joint; the model of the assembly configuration builds (its first fault is
 * found by building with the joints one by one: the joint that breaks it is the one at fault);
 * the pose coordinates are at most the mechanism's mobility; the loops close at the home pose. */
static pkm_status check_mechanism(robot_reader *rd, const yaml_node_t *pose)
{
    pkm_robot *r = rd->r;
    for (int b = 0; b < r->nbody; b++) {
        int used = 0;
        for (int j = 0; j < r->njoint && !used; j++)
            used = r->joint[j].d.body_a == b || r->joint[j].d.body_b == b;
        if (!used)
            return robot_fail(rd, rd->body_node[b], "body '%s' has no joint", r->body[b].name);
    }
    const int njoint = r->njoint;
    pkm_ctx local;
    pkm_status rc = PKM_OK;
    for (int j = 0; j <= njoint && rc == PKM_OK; j++) {
        pkm_model *m = NULL;
        r->njoint = j;
        pkm_ctx_clear(&local);
        rc = pkm_robot_build_assembly(r, &m, &local);
        pkm_model_destroy(&m);
        if (rc != PKM_OK)
            rc = robot_fail(rd, j > 0 ? rd->joint_node[j - 1] : rd->body_node[0], "%s", local.msg);
    }
    r->njoint = njoint;
    if (rc != PKM_OK) return rc;
    /* More pose coordinates than the mechanism moves in over-constrain the closure: every pose
     * but the assembly's would read out of the workspace. */
    int mobility = -1;
    pkm_ctx_clear(&local);
    if (pkm_robot_mobility(r, &mobility, &local) != PKM_OK)
        return robot_fail(rd, pose, "%s", local.msg);
    if (r->npose > mobility)
        return robot_fail(rd, pose,
                          "%d pose coordinates, but the mechanism has mobility %d (the "
                          "coordinates its loop closure leaves free at the assembly "
                          "configuration): give at most %d",
                          r->npose, mobility, mobility);
    double(*R)[3][3] = malloc(sizeof(double[3][3]) * (size_t)r->nbody);
    double(*p)[3] = malloc(sizeof(double[3]) * (size_t)r->nbody);
    int bad = -1;
    pkm_ctx_clear(&local);
    if (R == NULL || p == NULL)
        rc = PKM_FAIL(rd->ctx, PKM_ERR_NOMEM, "%s: out of memory", rd->file);
    else if (pkm_robot_solve(r, r->home, R, p, &bad, &local) != PKM_OK)
        rc = robot_fail(rd, bad >= 0 ? rd->joint_node[bad] : pose, "at the home pose: %s",
                        local.msg);
    free(R);
    free(p);
    return rc;
}

/* The sections of the document, in the order they depend on each other. */
static pkm_status read_robot(robot_reader *rd, const yaml_node_t *root)
{
    static const char *const keys[] = {
        "robot",        "description", "formulation", "materials", "sections", "bodies",
        "platform",     "joints",      "pose",        "gravity",   "friction", "masses",
        "trajectories", "springs",     "contacts",    "load",      NULL};
    static const char *const forms[] = {"tree", "nodal", NULL};
    pkm_robot *r = rd->r;
    yaml_node_t *v = NULL, *pose = NULL;
    int k = 1;
    pkm_status rc = robot_keys(rd, root, "robot file", keys);
    if (rc == PKM_OK) rc = robot_name(rd, robot_get(rd, root, "robot"), "robot", r->name);
    const char *s = "";
    if (rc == PKM_OK && (v = robot_get(rd, root, "description")) != NULL)
        rc = robot_text(rd, v, "description", &s);
    snprintf(r->description, sizeof(r->description), "%s", s);
    if (rc == PKM_OK && (v = robot_get(rd, root, "formulation")) != NULL)
        rc = robot_choice(rd, v, "formulation", forms, &k);
    r->formulation = k == 0 ? PKM_FORM_TREE : PKM_FORM_NODAL;
    if (rc == PKM_OK && (v = robot_get(rd, root, "materials")) != NULL) rc = read_library(rd, v, 0);
    if (rc == PKM_OK && (v = robot_get(rd, root, "sections")) != NULL) rc = read_library(rd, v, 1);
    if (rc == PKM_OK) rc = robot_need(rd, root, "bodies", "robot file", &v);
    if (rc == PKM_OK) rc = read_bodies(rd, v);
    r->platform = -1; /* optional where the pose names joints (read_pose) */
    if (rc == PKM_OK && (v = robot_get(rd, root, "platform")) != NULL) {
        const char *pname = NULL;
        rc = robot_text(rd, v, "platform", &pname);
        for (int b = 0; b < r->nbody && rc == PKM_OK && r->platform < 0; b++)
            if (strcmp(r->body[b].name, pname) == 0) r->platform = b;
        if (rc == PKM_OK && (r->platform < 0 || r->body[r->platform].kind != PKM_BODY_RIGID))
            rc = robot_fail(rd, v, "platform: '%s' is not a rigid body of the file", pname);
    }
    if (rc == PKM_OK) rc = robot_need(rd, root, "joints", "robot file", &v);
    if (rc == PKM_OK) rc = read_joints(rd, v);
    if (rc == PKM_OK) rc = robot_need(rd, root, "pose", "robot file", &pose);
    if (rc == PKM_OK) rc = read_pose(rd, pose);
    if (rc == PKM_OK) rc = check_mechanism(rd, pose);
    if (rc == PKM_OK) rc = robot_read_dynamics(rd, root);
    return rc;
}

/* The key 'robot' at the top of a mapping document marks a robot file. */
static int has_robot_key(robot_reader *rd, const yaml_node_t *root)
{
    return root != NULL && root->type == YAML_MAPPING_NODE && robot_get(rd, root, "robot") != NULL;
}

/* A text libyaml cannot load is a robot file if its first key is 'robot' (as the examples and
 * docs/robot-files.md write it): its syntax error is then reported here. */
static int starts_as_robot(const char *text, size_t len)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return 0;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int robot = 0;
    for (int k = 0; k < 4; k++) { /* stream, document, mapping, first key */
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) break;
        const int done = ev.type == YAML_SCALAR_EVENT || ev.type == YAML_STREAM_END_EVENT;
        robot = ev.type == YAML_SCALAR_EVENT && k == 3 &&
                strcmp((const char *)ev.data.scalar.value, "robot") == 0;
        yaml_event_delete(&ev);
        if (done) break;
    }
    yaml_parser_delete(&parser);
    return robot;
}

/* The sets not applied to the document must be parameters of c's table (the dynamics block):
 * else the first that resolved nowhere is the error. */
static pkm_status sets_known(const pkm_case *c, const char *const *sets, int nsets,
                             const int *applied, const char *why, pkm_ctx *ctx)
{
    for (int i = 0; i < nsets; i++) {
        char key[256];
        const char *eq = strchr(sets[i], '=');
        const size_t len = eq != NULL ? (size_t)(eq - sets[i]) : 0;
        if (applied[i] || len == 0 || len >= sizeof key) continue;
        memcpy(key, sets[i], len);
        key[len] = '\0';
        if (pkm_case_param_find(c, key) == NULL)
            return PKM_FAIL(ctx, PKM_ERR_INVALID, "%s: %s", c->yaml_name,
                            why[0] != '\0' ? why : key);
    }
    return PKM_OK;
}

pkm_status pkm_case_robot_load(const char *text, size_t len, const char *name,
                               const char *const *sets, int nsets, int *applied, int *is_robot,
                               const pkm_case **c, void **params, pkm_ctx *ctx)
{
    char why[300] = "";
    *is_robot = 0;
    robot_reader *rd = calloc(1, sizeof(*rd));
    pkm_robot *r = calloc(1, sizeof(*r));
    yaml_parser_t parser;
    int parser_ok = 0, doc_ok = 0;
    pkm_status rc = PKM_OK;
    if (rd == NULL || r == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "%s: out of memory", name);
        goto done;
    }
    rd->file = name;
    rd->ctx = ctx;
    rd->r = r;
    parser_ok = yaml_parser_initialize(&parser);
    if (parser_ok) {
        yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
        doc_ok = yaml_parser_load(&parser, &rd->doc);
    }
    if (!doc_ok && parser_ok && starts_as_robot(text, len)) {
        *is_robot = 1;
        rc = PKM_FAIL(ctx, PKM_ERR_PARSE, "%s:%zu:%zu: syntax error: %s", name,
                      parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                      parser.problem != NULL ? parser.problem : "malformed YAML");
        goto done;
    }
    /* Not a robot file (or not YAML): the case-file reader reports it. */
    if (!doc_ok || !has_robot_key(rd, yaml_document_get_root_node(&rd->doc))) goto done;
    *is_robot = 1;
    rc = robot_apply_sets(rd, sets, nsets, applied, why, sizeof why);
    if (rc == PKM_OK) rc = read_robot(rd, yaml_document_get_root_node(&rd->doc));
    if (rc == PKM_OK) rc = pkm_robot_case_create(r, name, c, params, ctx);
    if (rc == PKM_OK && (rc = sets_known(*c, sets, nsets, applied, why, ctx)) != PKM_OK)
        pkm_case_params_destroy(params);
done:
    if (doc_ok) yaml_document_delete(&rd->doc);
    if (parser_ok) yaml_parser_delete(&parser);
    free(r);
    free(rd);
    return rc;
}
