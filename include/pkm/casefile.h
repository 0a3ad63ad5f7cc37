/* include/pkm/casefile.h: case files, YAML documents that name a built-in topology and set the
 * numbers of its parameter table (include/pkm/cases.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   # comment
 *   case: navaro                   # the built-in topology (required)
 *   parameters:                    # optional; the keys of the case's table, nested at the dots
 *     link_length: 210 mm          # a quantity: an SI number, or a number and a unit
 *     material: {E: 74 GPa, rho: 2800}
 *     leg:
 *       A: 2.4e-4                  # leg.A
 *     elements_per_link: 2         # an integer
 *     mass: rotary                 # one of the parameter's choice names
 *
 * Parameters the file does not set keep the built-in values (the case's embedded file, e.g.
 * cases/navaro.yaml). Everything else is an error PKM_ERR_PARSE whose message starts with
 * "FILE:LINE:COLUMN: " (1-based) at the offending node: a YAML syntax error, an unknown or
 * repeated key, a mapping or sequence where a value belongs (or the reverse), a value that is not
 * a number, integer or choice, a unit of the wrong dimension (the message names the key and the
 * expected unit), a value outside the parameter's range (include/pkm/cases.h), a missing `case`
 * or an unknown case name, a YAML alias, a second YAML document, mappings and sequences nested
 * deeper than 16, a text larger than 1 MiB.
 *
 * A document with the key `robot` instead of `case` is a robot file: a mechanism described by
 * its topology (docs/robot-files.md, include/pkm/robot.h). Loading one gives a case made for it
 * that lives in the same allocation as its params: pkm_case_params_destroy(params) ends both, so
 * the case must not be used after it. Its faults are PKM_ERR_PARSE "FILE:LINE:COLUMN: " too. */
#ifndef PKM_CASEFILE_H
#define PKM_CASEFILE_H

#include <stddef.h>

#include "pkm/cases.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A new parameter struct of c (c->params_size bytes) holding its built-in values, parsed from
 * its embedded case file. Fails (PKM_ERR_PARSE, or PKM_ERR_INVALID naming the parameter when
 * that file does not set every parameter of the table) only for a broken build. */
pkm_status pkm_case_params_create(const pkm_case *c, void **params, pkm_ctx *ctx);
void pkm_case_params_destroy(void **params);

/* Read the case file at path: *c is the case it names, *params (pkm_case_params_destroy) its
 * built-in values overridden by the file's; or for a robot file the case it describes, ended
 * with its params. PKM_ERR_IO if the file cannot be read. */
pkm_status pkm_case_file_load(const char *path, const pkm_case **c, void **params, pkm_ctx *ctx);

/* pkm_case_file_load with overrides, the nsets texts KEY=VALUE of `--set`: a robot file takes
 * each one whose dotted key names a value of its document (mappings by key, lists by an entry's
 * `name`, by x, y, z in a 3-vector or by index: bodies.distal 1.beam.elements,
 * sections.link.A, joints.A1.stiffness, trajectories.p2p.motion.x.quintic.1) as if the file
 * said so, checked as the file's own (applied[i] = 1); the others are left to
 * pkm_case_param_set (applied[i] = 0): a robot file's dynamics block that the file does not
 * write, every key of a built-in case's file. PKM_ERR_INVALID naming the key and what it did not
 * find when a robot file's key resolves to nothing and is not a parameter. */
pkm_status pkm_case_file_load_set(const char *path, const char *const *sets, int nsets,
                                  int *applied, const pkm_case **c, void **params, pkm_ctx *ctx);

/* The same from len bytes of text; name stands for the file in messages. */
pkm_status pkm_case_text_load(const char *text, size_t len, const char *name, const pkm_case **c,
                              void **params, pkm_ctx *ctx);

/* Every case pkmflex knows by name, NULL-terminated: the compiled cases of pkm_case_list()
 * (include/pkm/cases.h) and the robot files embedded in the library, tree5 and loop3 (Guo, Ju,
 * Wang 2024, Tables 2 and 3; cases/tree5.yaml, cases/loop3.yaml). Static data. */
const char *const *pkm_case_names(void);

/* The built-in case of that name (one of pkm_case_names()), with the contract of
 * pkm_case_file_load_set: an embedded robot file takes each of the nsets KEY=VALUE of sets that
 * names a value of its document (applied[i] = 1; messages name its source, e.g.
 * "cases/tree5.yaml"), the others are left to pkm_case_param_set (applied[i] = 0); a compiled
 * case gets its built-in values (pkm_case_params_create), every applied[i] = 0. End with
 * pkm_case_params_destroy(params). PKM_ERR_INVALID naming the built-in cases for an unknown
 * name. */
pkm_status pkm_case_open(const char *name, const char *const *sets, int nsets, int *applied,
                         const pkm_case **c, void **params, pkm_ctx *ctx);

/* The embedded text of the built-in of that name: its robot file, or a compiled case's default
 * case file (pkm_case.yaml); NULL for another name. */
const char *pkm_case_text(const char *name);

/* Write a case file of case c setting every parameter of its table to its value in params,
 * each line of comment (may be NULL) first as a '#' line; written to path.tmp and renamed onto
 * path. PKM_ERR_IO naming the file. */
pkm_status pkm_case_file_write(const char *path, const pkm_case *c, const void *params,
                               const char *comment, pkm_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
