/*
 * Freeing a program and handing a finished one over (cc_common.h): every stage that fills
 * a struct kiln_cc_program, and both drivers, end with these.
 */
#include "cc_common.h"

#include <stdlib.h>

void kiln_cc_kernels_free(struct kiln_cc_program *p)
{
    for (unsigned i = 0; i < p->num_kernels; i++) {
        struct kiln_cc_kernel *k = &p->kernels[i];
        struct kiln_cc_arg *args = (struct kiln_cc_arg *)k->args;
        for (unsigned j = 0; args && j < k->num_args; j++) {
            free((char *)args[j].name);
            free((char *)args[j].type_name);
            free((char *)args[j].access_qual);
            free((char *)args[j].type_qual);
        }
        free(args);
        free((char *)k->name);
        free((char *)k->attributes);
    }
    free(p->kernels);
    p->kernels = NULL;
    p->num_kernels = 0;
}

enum kiln_cc_status kiln_cc_finish(enum kiln_cc_status status, struct kiln_cc_program *p,
                                   struct kiln_cc_log *log, struct kiln_cc_program **out,
                                   char **log_out, void (*destroy)(struct kiln_cc_program *))
{
    if (status == KILN_CC_OK && log->out_of_memory)
        status = KILN_CC_OUT_OF_MEMORY;
    *log_out = kiln_cc_log_take(log);
    if (!*log_out && status == KILN_CC_OK)
        status = KILN_CC_OUT_OF_MEMORY;
    if (status == KILN_CC_OK)
        *out = p;
    else
        destroy(p);
    return status;
}

void kiln_cc_wg_names_free(struct kiln_cc_program *p)
{
    for (unsigned k = 0; p->wg_names && k < p->num_kernels; k++)
        free(p->wg_names[k]);
    free(p->wg_names);
    p->wg_names = NULL;
}

void kiln_cc_program_free(struct kiln_cc_program *p)
{
    if (!p)
        return;
    kiln_cc_wg_names_free(p); /* before the kernels: it counts them */
    kiln_cc_kernels_free(p);
    free(p->assembly);
    free(p->binary);
    free(p->bitcode);
    free(p);
}
