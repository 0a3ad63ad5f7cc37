/* io/case_robot_impl.h: private interface of the robot-file reader (io/case_robot.c, the
 * format in docs/robot-files.md): the YAML node helpers of io/case_robot_yaml.c, each failing
 * with PKM_ERR_PARSE "FILE:LINE:COLUMN: message" at the node at fault.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_CASE_ROBOT_IMPL_H
#define PKM_IO_CASE_ROBOT_IMPL_H

#include "pkm/robot.h"
#include "pkm/status.h"

#include <yaml.h>

/* Named materials and sections a file declares, referred to by the beams. */
#define ROBOT_MAX_NAMED 32

typedef struct robot_reader {
    yaml_document_t doc;
    const char *file; /* for messages */
    pkm_ctx *ctx;
    pkm_robot *r;
    int nmat, nsec;
    char mat_name[ROBOT_MAX_NAMED][PKM_NAME_LEN], sec_name[ROBOT_MAX_NAMED][PKM_NAME_LEN];
    pkm_material mat[ROBOT_MAX_NAMED];
    pkm_section sec[ROBOT_MAX_NAMED];
    const yaml_node_t *body_node[PKM_ROBOT_MAX_BODIES];
    const yaml_node_t *joint_node[PKM_ROBOT_MAX_JOINTS];
} robot_reader;

/* PKM_ERR_PARSE at node n (printf format). */
pkm_status robot_fail(robot_reader *rd, const yaml_node_t *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The value of key in mapping n, or NULL. */
yaml_node_t *robot_get(robot_reader *rd, const yaml_node_t *n, const char *key);

/* n must be a mapping whose keys are plain names among allowed (NULL-terminated), each once. */
pkm_status robot_keys(robot_reader *rd, const yaml_node_t *n, const char *what,
                      const char *const *allowed);

/* The value of a required key (missing: an error at the mapping naming it). */
pkm_status robot_need(robot_reader *rd, const yaml_node_t *n, const char *key, const char *what,
                      yaml_node_t **out);

/* A scalar's text (anything else: an error naming what was expected). */
pkm_status robot_text(robot_reader *rd, const yaml_node_t *n, const char *what, const char **out);

/* A scalar's text copied into a name of PKM_NAME_LEN bytes (non-empty, shorter). */
pkm_status robot_name(robot_reader *rd, const yaml_node_t *n, const char *what, char *out);

/* A quantity in unit (pkm_quantity_parse: "210 mm" for "m"). */
pkm_status robot_quantity(robot_reader *rd, const yaml_node_t *n, const char *unit, double *v);

/* A sequence of count quantities in unit. */
pkm_status robot_vector(robot_reader *rd, const yaml_node_t *n, const char *unit, int count,
                        double *v);

/* true/false (also yes/no, on/off). */
pkm_status robot_bool(robot_reader *rd, const yaml_node_t *n, int *v);

/* An integer in [lo, hi]. */
pkm_status robot_int(robot_reader *rd, const yaml_node_t *n, int lo, int hi, int *v);

/* The index of the scalar n among names (NULL-terminated), or an error listing them. */
pkm_status robot_choice(robot_reader *rd, const yaml_node_t *n, const char *what,
                        const char *const *names, int *index);

/* n must be a sequence: its items and count. */
pkm_status robot_items(robot_reader *rd, const yaml_node_t *n, const char *what,
                       yaml_node_item_t **items, int *count);

/* n must be a sequence of 1 to max entries: its items and count. */
pkm_status robot_list(robot_reader *rd, const yaml_node_t *n, const char *what, int max,
                      yaml_node_item_t **items, int *count);

/* An inertia tensor, kg m^2: [Jxx, Jyy, Jzz] or [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]. */
pkm_status robot_inertia(robot_reader *rd, const yaml_node_t *n, double J[3][3]);

/* io/case_robot_dyn.c: the time-domain blocks of root (gravity, friction, masses, trajectories)
 * into rd->r, read after the joints and the pose; the dynamics' defaults where absent. */
pkm_status robot_read_dynamics(robot_reader *rd, const yaml_node_t *root);

/* io/case_robot_set.c: each KEY=VALUE of sets whose dotted key names a scalar of the document
 * (mappings by key, lists by an entry's name, x, y, z of a 3-vector or an index) replaced by
 * VALUE (applied[i] = 1); the others left (applied[i] = 0), why the first did not resolve in
 * why. PKM_ERR_NOMEM. */
pkm_status robot_apply_sets(robot_reader *rd, const char *const *sets, int nsets, int *applied,
                            char *why, size_t nwhy);

#endif
