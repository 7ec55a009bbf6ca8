/*
 * A set of pointers, or a map from pointers to pointers (cc_util.h): open addressing with
 * linear probing, at most half full, deletion by backward shift so that the probe chains
 * stay whole. The stages key it by LLVM objects: blocks, values, metadata.
 */
#include "cc_util.h"

#include <stdlib.h>

static size_t slot_of(const struct kiln_cc_ptr_map *m, const void *p)
{
    size_t h = ((uintptr_t)p >> 4) * (size_t)0x9e3779b97f4a7c15u;
    size_t i = h & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != p)
        i = (i + 1) & (m->cap - 1);
    return i;
}

bool kiln_cc_ptr_map_has(const struct kiln_cc_ptr_map *m, const void *p)
{
    return m->cap && m->keys[slot_of(m, p)] == p;
}

void *kiln_cc_ptr_map_get(const struct kiln_cc_ptr_map *m, const void *p)
{
    if (!m->cap)
        return NULL;
    size_t i = slot_of(m, p);
    return m->keys[i] == p ? m->vals[i] : NULL;
}

bool kiln_cc_ptr_map_put(struct kiln_cc_ptr_map *m, const void *p, void *v)
{
    if (2 * (m->len + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct kiln_cc_ptr_map bigger = {calloc(cap, sizeof(void *)), calloc(cap, sizeof(void *)),
                                         cap, 0};
        if (!bigger.keys || !bigger.vals) {
            free(bigger.keys);
            free(bigger.vals);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = slot_of(&bigger, m->keys[i]);
                bigger.keys[j] = m->keys[i];
                bigger.vals[j] = m->vals[i];
                bigger.len++;
            }
        free(m->keys);
        free(m->vals);
        *m = bigger;
    }
    size_t i = slot_of(m, p);
    if (!m->keys[i]) {
        m->keys[i] = p;
        m->len++;
    }
    m->vals[i] = v;
    return true;
}

bool kiln_cc_ptr_map_add(struct kiln_cc_ptr_map *m, const void *p)
{
    return kiln_cc_ptr_map_has(m, p) || kiln_cc_ptr_map_put(m, p, NULL);
}

void kiln_cc_ptr_map_remove(struct kiln_cc_ptr_map *m, const void *p)
{
    if (!kiln_cc_ptr_map_has(m, p))
        return;
    size_t i = slot_of(m, p);
    m->keys[i] = NULL;
    m->vals[i] = NULL;
    m->len--;
    for (size_t j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
        const void *k = m->keys[j];
        void *v = m->vals[j];
        m->keys[j] = NULL;
        m->vals[j] = NULL;
        size_t to = slot_of(m, k);
        m->keys[to] = k;
        m->vals[to] = v;
    }
}

void kiln_cc_ptr_map_free(struct kiln_cc_ptr_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->len = 0;
}
