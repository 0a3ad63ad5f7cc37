/* tests/layers/layer_probe.c: one #include compiled with the include path of one layer (the
 * layer_* tests of tests/CMakeLists.txt): the header a layer must not see is not found.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include PKM_PROBE_HEADER

int pkm_layer_probe(void);
int pkm_layer_probe(void)
{
    return 0;
}
