/*
 * The region transform's slots (wg_transform.c, step 3): which allocas get a copy per
 * work-item in ctx->scratch and where, and the alias scopes that tell LLVM the slot
 * arrays apart.
 */
#include "wg_regions.h"
#include "kiln_abi.h"

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int by_align_desc(const void *a, const void *b)
{
    unsigned x = LLVMGetAlignment(*(LLVMValueRef const *)a);
    unsigned y = LLVMGetAlignment(*(LLVMValueRef const *)b);
    return (x < y) - (x > y);
}

/* Decides which allocas get scratch slots, and lays the slots out. */
enum kiln_cc_status kiln_cc_regions_choose_slots(struct regions *r)
{
    size_t n = r->num_blocks, cap = 16;
    unsigned nb = r->num_barriers;
    unsigned char *before = calloc((size_t)nb * n + 1, 1), *after = calloc((size_t)nb * n + 1, 1);
    struct alloca_uses u = {calloc(n + 1, 1), false, false, false};
    enum kiln_cc_status status = KILN_CC_OUT_OF_MEMORY;

    struct kiln_cc_ptr_map shared = {0};
    size_t num_allocas = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in))
        num_allocas += LLVMIsAAllocaInst(in) != NULL;
    LLVMValueRef *allocas = calloc(num_allocas + 1, sizeof(*allocas));
    unsigned char *is_shared = calloc(num_allocas + 1, sizeof(*is_shared));
    r->slots = malloc(cap * sizeof(*r->slots));
    if (!before || !after || !u.blocks || !r->slots || !allocas || !is_shared)
        goto out;
    num_allocas = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in))
        if (LLVMIsAAllocaInst(in))
            allocas[num_allocas++] = in;
    if (!kiln_cc_regions_find_shared(r, allocas, num_allocas, is_shared))
        goto out;
    for (size_t i = 0; i < num_allocas; i++)
        if (is_shared[i] &&
            !kiln_cc_ptr_map_put(&shared, allocas[i], (void *)(uintptr_t)is_shared[i]))
            goto out;
    for (unsigned i = 0; i < nb; i++)
        if (!kiln_cc_regions_reach(r, r->bar_block[i], true, false, before + (size_t)i * n) ||
            !kiln_cc_regions_reach(r, r->bar_cont[i], false, false, after + (size_t)i * n))
            goto out;

    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->w); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsAAllocaInst(in))
                continue;
            if (bb != r->entry) {
                status = kiln_cc_regions_refuse(
                    r, "it allocates private memory outside the entry block");
                goto out;
            }
            memset(u.blocks, 0, n);
            u.in_entry = u.written_outside = u.escapes = false;
            kiln_cc_regions_collect_uses(r, in, &u, 0);
            if (u.in_entry) {
                /* Set up by the prologue, only read by the work-items. */
                if (u.written_outside || u.escapes) {
                    status =
                        kiln_cc_regions_refuse(r, "argument memory is written by the work-items");
                    goto out;
                }
                continue;
            }
            bool crosses = u.escapes;
            for (unsigned i = 0; i < nb && !crosses; i++) {
                bool b_use = false, a_use = false;
                for (size_t j = 0; j < n; j++) {
                    b_use |= u.blocks[j] && before[(size_t)i * n + j];
                    a_use |= u.blocks[j] && after[(size_t)i * n + j];
                }
                crosses = b_use && a_use;
            }
            /* One copy serves the group when every work-item holds the same value. */
            if (!crosses)
                continue;
            uintptr_t kind = (uintptr_t)kiln_cc_ptr_map_get(&shared, in);
            if (!u.escapes && kind == SHARED_SNAPSHOT) {
                LLVMValueRef *more = realloc(r->snaps, (r->num_snaps + 1) * sizeof(*more));
                if (!more)
                    goto out;
                r->snaps = more;
                r->snaps[r->num_snaps++] = in;
                continue;
            }
            if (!u.escapes && kind == SHARED)
                continue;
            if (r->num_slots == cap) {
                LLVMValueRef *more = realloc(r->slots, 2 * cap * sizeof(*more));
                if (!more)
                    goto out;
                r->slots = more;
                cap *= 2;
            }
            r->slots[r->num_slots++] = in;
        }

    qsort(r->slots, r->num_slots, sizeof(*r->slots), by_align_desc);
    r->slot_size = calloc(r->num_slots + 1, sizeof(size_t));
    r->slot_offset = calloc(r->num_slots + 1, sizeof(size_t));
    if (!r->slot_size || !r->slot_offset)
        goto out;
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(r->b->mod);
    for (size_t s = 0; s < r->num_slots; s++) {
        LLVMValueRef a = r->slots[s];
        unsigned align = LLVMGetAlignment(a);
        LLVMValueRef count = LLVMGetOperand(a, 0);
        if (!LLVMIsAConstantInt(count)) {
            status = kiln_cc_regions_refuse(
                r, "it keeps a variable-sized private array across a barrier");
            goto out;
        }
        if (align > KILN_SCRATCH_ALIGN) {
            status = kiln_cc_regions_refuse(
                r, "it keeps private data aligned to more than 128 bytes across a "
                   "barrier");
            goto out;
        }
        size_t size = LLVMABISizeOfType(td, LLVMGetAllocatedType(a)) *
                      (size_t)LLVMConstIntGetZExtValue(count);
        if (align == 0)
            align = 1;
        size = (size + align - 1) / align * align;
        if (size == 0)
            size = align;
        r->slot_size[s] = size;
        r->slot_offset[s] = r->per_item;
        r->per_item += size;
    }
    status = KILN_CC_OK;
out:
    free(before);
    free(after);
    free(u.blocks);
    free(allocas);
    free(is_shared);
    kiln_cc_ptr_map_free(&shared);
    return status;
}

/*
 * Whether every use of `ptr` (an alloca or an address computed from it) is a
 * load from it, a store to it, address arithmetic followed the same way, or a
 * lifetime marker: then the region clones reach its memory only through
 * pointers they can trace back to its slot.
 */
static bool only_addressed(LLVMValueRef ptr, unsigned depth)
{
    if (depth > 64)
        return false;
    for (LLVMUseRef use = LLVMGetFirstUse(ptr); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsALoadInst(user))
            continue;
        if (LLVMIsAStoreInst(user)) {
            if (LLVMGetOperand(user, 0) == ptr)
                return false;
            continue;
        }
        if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user)) {
            if (LLVMGetOperand(user, 0) != ptr || !only_addressed(user, depth + 1))
                return false;
            continue;
        }
        if (kiln_cc_is_lifetime_marker(user))
            continue;
        return false;
    }
    return true;
}

static LLVMMetadataRef distinct_node(LLVMContextRef ctx, LLVMMetadataRef domain)
{
    LLVMMetadataRef self = LLVMTemporaryMDNode(ctx, NULL, 0);
    LLVMMetadataRef ops[2] = {self, domain};
    LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, ops, domain ? 2 : 1);
    /* Makes the node refer to itself, which also makes it distinct. */
    LLVMMetadataReplaceAllUsesWith(self, node);
    return node;
}

/*
 * One alias scope per slot array, all in one domain. The slot arrays are
 * disjoint parts of ctx->scratch, which nothing outside this function can
 * reach, so an access of one slot touches no other slot, and an access that is
 * not of a slot touches none. Slots whose address may flow where the clones
 * cannot follow it get no scope and are claimed about by nobody. The work-items'
 * names of the next region, after the slots, get one more scope.
 */
enum kiln_cc_status kiln_cc_regions_make_scopes(struct regions *r)
{
    size_t n = r->num_slots, num = 0;
    r->scope_list = calloc(n + 2, sizeof(*r->scope_list));
    r->noalias_but = calloc(n + 2, sizeof(*r->noalias_but));
    LLVMMetadataRef *scopes = calloc(n + 1, sizeof(*scopes));
    LLVMMetadataRef *others = calloc(n + 1, sizeof(*others));
    if (!r->scope_list || !r->noalias_but || !scopes || !others) {
        free(scopes);
        free(others);
        return KILN_CC_OUT_OF_MEMORY;
    }
    LLVMMetadataRef domain = distinct_node(r->ctx, NULL);
    for (size_t s = 0; s < n; s++)
        if (only_addressed(r->slots[s], 0))
            scopes[s] = distinct_node(r->ctx, domain);
    scopes[n] = distinct_node(r->ctx, domain); /* the names of the next regions */
    for (size_t s = 0; s <= n; s++)
        if (scopes[s])
            others[num++] = scopes[s];
    if (num) {
        r->noalias_all = LLVMMDNodeInContext2(r->ctx, others, num);
        for (size_t s = 0; s <= n; s++) {
            if (!scopes[s])
                continue;
            size_t k = 0;
            for (size_t t = 0; t <= n; t++)
                if (scopes[t] && t != s)
                    others[k++] = scopes[t];
            r->scope_list[s] = LLVMMDNodeInContext2(r->ctx, &scopes[s], 1);
            r->noalias_but[s] = k ? LLVMMDNodeInContext2(r->ctx, others, k) : NULL;
        }
    }
    free(scopes);
    free(others);
    return KILN_CC_OK;
}

/* Adds the scopes in `list` to the instruction's `kind` list (!alias.scope, !noalias). */
static void add_scopes(LLVMContextRef ctx, LLVMValueRef in, const char *kind, LLVMMetadataRef list)
{
    if (!list)
        return;
    unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind));
    LLVMValueRef old = LLVMGetMetadata(in, id);
    LLVMValueRef add = LLVMMetadataAsValue(ctx, list);
    if (old) {
        unsigned a = LLVMGetMDNodeNumOperands(old), b = LLVMGetMDNodeNumOperands(add);
        LLVMValueRef *vals = calloc((size_t)a + b + 1, sizeof(*vals));
        LLVMMetadataRef *ops = calloc((size_t)a + b + 1, sizeof(*ops));
        if (!vals || !ops) {
            /* Leaving the claim out is always correct. */
            free(vals);
            free(ops);
            return;
        }
        LLVMGetMDNodeOperands(old, vals);
        LLVMGetMDNodeOperands(add, vals + a);
        for (unsigned i = 0; i < a + b; i++)
            ops[i] = LLVMValueAsMetadata(vals[i]);
        add = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, ops, a + b));
        free(vals);
        free(ops);
    }
    LLVMSetMetadata(in, id, add);
}

/* Tags a load or store: of slot `slot` (0 when none; else the slot's index + 1). */
void kiln_cc_regions_tag_access(const struct regions *r, LLVMValueRef in, size_t slot)
{
    if (!r->noalias_all || LLVMGetVolatile(in))
        return;
    if (!slot) {
        add_scopes(r->ctx, in, "noalias", r->noalias_all);
    } else if (r->scope_list[slot - 1]) {
        add_scopes(r->ctx, in, "alias.scope", r->scope_list[slot - 1]);
        add_scopes(r->ctx, in, "noalias", r->noalias_but[slot - 1]);
    } else {
        /* Another array: none of the scoped slots. */
        add_scopes(r->ctx, in, "noalias", r->noalias_all);
    }
}
