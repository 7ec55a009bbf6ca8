/*
 * LLVM 19's default<O3>, as `opt -passes='default<O3>' -print-pipeline-passes` prints it
 * (with the C API's pipeline tuning, which includes the SLP vectoriser), cut into three
 * parts around the loop vectoriser: the function pass manager that holds loop-vectorize
 * is split into three, which runs the same passes in the same order. optimize.c runs
 * Kiln's own passes between the parts; tests/compiler/o3_pipeline.py checks that the parts
 * together are the default<O3> of the LLVM Kiln is built with, so that an LLVM update
 * cannot drop or add a pass unnoticed.
 */
#include "o3_pipeline.h"

const char kiln_cc_o3_before_vectorize[] =
    "annotation2metadata,forceattrs,inferattrs,coro-early,function<eager-inv>(ee-instrument<>,"
    "lower-expect,simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;no-switch-range-to-"
    "icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-"
    "blocks;simplify-cond-branch;no-speculate-unpredictables>,sroa<modify-cfg>,early-cse<>,"
    "callsite-splitting),openmp-opt,ipsccp,called-value-propagation,globalopt,function<eager-"
    "inv>(mem2reg,instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>,simplifycfg<"
    "bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;"
    "keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-"
    "branch;no-speculate-unpredictables>),always-inline,require<globals-aa>,function(invalidate<"
    "aa>),require<profile-summary>,cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-"
    "function-attrs>,argpromotion,openmp-opt-cgscc,function<eager-inv;no-rerun>(sroa<modify-"
    "cfg>,early-cse<memssa>,speculative-execution<only-if-divergent-target>,jump-threading,"
    "correlated-propagation,simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-"
    "range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;"
    "speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,instcombine<max-"
    "iterations=1;no-use-loop-info;no-verify-fixpoint>,aggressive-instcombine,libcalls-"
    "shrinkwrap,tailcallelim,simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-"
    "range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;"
    "speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,reassociate,constraint-"
    "elimination,loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,loop-"
    "rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,simple-loop-unswitch<"
    "nontrivial;trivial>),simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-"
    "range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;"
    "speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,instcombine<max-"
    "iterations=1;no-use-loop-info;no-verify-fixpoint>,loop(loop-idiom,indvars,simple-loop-"
    "unswitch<nontrivial;trivial>,loop-deletion,loop-unroll-full),sroa<modify-cfg>,vector-"
    "combine,mldst-motion<no-split-footer-bb>,gvn<>,sccp,bdce,instcombine<max-iterations=1;no-"
    "use-loop-info;no-verify-fixpoint>,jump-threading,correlated-propagation,adce,memcpyopt,dse,"
    "move-auto-init,loop-mssa(licm<allowspeculation>),coro-elide,simplifycfg<bonus-inst-"
    "threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;"
    "hoist-common-insts;sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-"
    "unpredictables>,instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>),"
    "function-attrs,function(require<should-not-run-function-passes>),coro-split)),"
    "deadargelim,coro-cleanup,globalopt,globaldce,elim-avail-extern,rpo-function-attrs,"
    "recompute-globalsaa,function<eager-inv>(float2int,lower-constant-intrinsics,chr,loop(loop-"
    "rotate<header-duplication;no-prepare-for-lto>,loop-deletion),loop-distribute,inject-tli-"
    "mappings)";

const char kiln_cc_o3_vectorize[] =
    "function<eager-inv>(loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>)";

const char kiln_cc_o3_after_vectorize[] =
    "function<eager-inv>(infer-alignment,loop-load-elim,instcombine<max-iterations=1;no-use-"
    "loop-info;no-verify-fixpoint>,simplifycfg<bonus-inst-threshold=1;forward-switch-cond;"
    "switch-range-to-icmp;switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts;"
    "speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,slp-vectorizer,vector-"
    "combine,instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>,loop-unroll<O3>,"
    "transform-warning,sroa<preserve-cfg>,infer-alignment,instcombine<max-iterations=1;no-use-"
    "loop-info;no-verify-fixpoint>,loop-mssa(licm<allowspeculation>),alignment-from-"
    "assumptions,loop-sink,instsimplify,div-rem-pairs,tailcallelim,simplifycfg<bonus-inst-"
    "threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-"
    "hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;speculate-"
    "unpredictables>),globaldce,constmerge,cg-profile,rel-lookup-table-converter,function("
    "annotation-remarks)";
