/* io/case_file_impl.h: private interface of the YAML case-file reader: the libcyaml schema made
 * from a case's parameter table (case_schema.c), the libyaml pass that bounds the document's
 * shape and finds the position of a fault (case_scan.c), and the loader that uses both
 * (case_file.c; the design is at its top).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_IO_CASE_FILE_IMPL_H
#define PKM_IO_CASE_FILE_IMPL_H

#include "pkm/cases.h"
#include "pkm/status.h"

#include <cyaml/cyaml.h>
#include <stddef.h>

/* Bytes: a case file is a page of numbers (the built-in ones are 2-7 KB). With the nesting
 * bounded, 1 MiB of comments, a string or a flat sequence is read or refused in 0.03-0.2 s. */
#define CASE_FILE_MAX (1 << 20)
#define PATH_MAX_LEN  256 /* "parameters.leg.A" */
/* Nesting of mappings and sequences: the deepest key of a table, "parameters.link.paper.nelem",
 * needs 4. libyaml's scanner keeps one possible simple key per flow level and checks them all
 * at every token, so deep flow collections cost depth^2: 200 KB of them took 20-43 s (issue 8).
 * The check stops at the first node too deep, before libyaml has read much further. */
#define MAX_DEPTH 16

/* The document: {case: string, parameters: mapping of the table}, or {case} alone when c is
 * NULL (the first pass, which only learns the case's name). */
typedef struct doc_schema {
    cyaml_schema_field_t top[3];
    cyaml_schema_value_t value;
} doc_schema;

/* case_schema.c: s for case c (NULL: {case} alone); 0 when out of memory (free s still). */
int pkm_case_schema_init(doc_schema *s, const pkm_case *c);
void pkm_case_schema_free(doc_schema *s);

/* The first error libcyaml logs, kept for the fallback message: the library never prints. */
typedef struct log_buf {
    char msg[160];
} log_buf;

/* A libcyaml configuration that keeps its first error in log (cleared) instead of printing. */
cyaml_config_t pkm_case_cyaml_config(log_buf *log, cyaml_cfg_flags_t flags);

/* case_scan.c: the shape of text, checked before libcyaml reads it: one YAML document, nested at
 * most MAX_DEPTH deep, within CASE_FILE_MAX bytes; PKM_ERR_PARSE at the node at fault. */
pkm_status pkm_case_check_shape(const char *text, size_t len, const char *name, pkm_ctx *ctx);

/* PKM_ERR_PARSE "name:line:col: msg" at the problem the libyaml pass finds in text (with the
 * rules of case c, NULL: the first pass), or from libcyaml's own message (err, log). */
pkm_status pkm_case_fail_at_problem(const char *text, size_t len, const char *name,
                                    const pkm_case *c, cyaml_err_t err, const log_buf *log,
                                    pkm_ctx *ctx);

/* PKM_ERR_PARSE "name:line:col: msg" at the value of path (the start of the file if the scan
 * cannot find it). */
pkm_status pkm_case_fail_at_value(const char *text, size_t len, const char *name, const pkm_case *c,
                                  const char *path, const char *msg, pkm_ctx *ctx);

/* case_robot.c: a robot file (docs/robot-files.md) if text is one (*is_robot = 1): the case
 * its topology describes, with PKM_ERR_PARSE at the node at fault, the nsets KEY=VALUE of sets
 * applied to its document where they name a value (pkm_case_file_load_set); else *is_robot = 0
 * and PKM_OK, the text left to the case-file reader. */
pkm_status pkm_case_robot_load(const char *text, size_t len, const char *name,
                               const char *const *sets, int nsets, int *applied, int *is_robot,
                               const pkm_case **c, void **params, pkm_ctx *ctx);

/* case_file.c: pkm_case_file_load_set on len bytes of text (name stands for the file). */
pkm_status pkm_case_text_load_set(const char *text, size_t len, const char *name,
                                  const char *const *sets, int nsets, int *applied,
                                  const pkm_case **c, void **params, pkm_ctx *ctx);

/* cases/tree5.yaml and cases/loop3.yaml, robot files embedded at build time (io/CMakeLists.txt,
 * cmake/PkmEmbed.cmake), NUL-terminated: the built-in cases of io/case_registry.c. */
extern const unsigned char pkm_tree5_yaml[];
extern const unsigned char pkm_loop3_yaml[];

#endif
