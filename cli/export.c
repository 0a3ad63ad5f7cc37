/* cli/export.c: pkmflex export: a map file written by `pkmflex map` in another format (VTKHDF
 * for ParaView).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/cli.h"

#include "pkm/map.h"

#include <stdio.h>
#include <string.h>

enum { EXPORT_VTK = CLI_OPT_OWN };

typedef struct export_args {
    const char *input;
    const char *vtk;
} export_args;

static const cli_option export_options[] = {
    {"--vtk", NULL, 1, EXPORT_VTK, "FILE.vtkhdf",
     "the grid with f_1..f_nev and the status as point fields and the\n"
     "cells' status, for ParaView (VTKHDF, docs/hdf5-layout.md)",
     NULL},
};

static const cli_command export_command = {
    "export",
    "usage: pkmflex export F.h5 --vtk FILE.vtkhdf\n\n"
    "Writes the frequency map F.h5 (from pkmflex map) in another format. Maps of\n"
    "up to 3 swept axes (ParaView's x, y, z).\n\n",
    export_options, (int)(sizeof(export_options) / sizeof(export_options[0])), 0};

static int export_set(void *user, int id, const char *v)
{
    export_args *o = user;
    if (id == EXPORT_VTK) {
        o->vtk = v;
        return 0;
    }
    if (o->input != NULL) return cli_usage_error("unexpected argument '%s'", v);
    o->input = v;
    return 0;
}

int cli_export(int argc, char **argv)
{
    export_args o = {0};
    int rc = cli_parse(argc, argv, &export_command, export_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    if (o.input == NULL || o.vtk == NULL)
        return cli_usage_error("export: a map file and --vtk FILE.vtkhdf are required");
    if ((rc = cli_check_output_path(o.vtk)) != 0) return rc;
    pkm_map map;
    pkm_map_init(&map);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    /* A file a user names may be damaged or crafted: read in a child process (pkm/io.h). */
    pkm_status st = pkm_map_read_h5_isolated(o.input, 0.0, &map, &ctx);
    if (st == PKM_OK) st = pkm_map_write_vtkhdf(&map, o.vtk, &ctx);
    rc = st == PKM_OK ? 0 : cli_report(st, &ctx);
    if (rc == 0)
        printf("# %s: %lld poses, written to %s\n", o.input, (long long)map.npoints, o.vtk);
    pkm_map_free(&map);
    return rc;
}
