/*
 * The context switch of the fiber strategy (fiber_rt.c), x86-64 System V.
 *
 *     void kiln_fiber_switch(void **save_sp, void *to_sp)
 *
 * pushes what the ABI says a call preserves (rbx, rbp, r12-r15, the MXCSR and the
 * x87 control word), stores the stack pointer in *save_sp, then loads to_sp and
 * pops the same frame from there. Caller-saved registers need no saving: the
 * switch is an ordinary call to the code around it. A frame is 64 bytes:
 *
 *     to_sp + 0   MXCSR (4 bytes), x87 control word (2 bytes), padding
 *     to_sp + 8   r15, r14, r13, r12, rbx, rbp
 *     to_sp + 56  return address
 *
 * A new fiber's first frame (built by fiber_rt.c) returns into
 * kiln_fiber_trampoline with its group in r12 and its work-item index in r13.
 * The trampoline calls kiln_fiber_main, which runs the work-item and returns the
 * stack to continue on; the finished stack is never resumed, so nothing is saved.
 * Every C function on a fiber thus returns normally, which keeps the
 * sanitizers' shadow call stacks balanced.
 */
    .text

    .globl kiln_fiber_switch
    .hidden kiln_fiber_switch
    .type kiln_fiber_switch, @function
    .p2align 4
kiln_fiber_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
.Lrestore:
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size kiln_fiber_switch, . - kiln_fiber_switch

/* Entered by the ret above on a fresh stack; leaves it for good. */
    .globl kiln_fiber_trampoline
    .hidden kiln_fiber_trampoline
    .type kiln_fiber_trampoline, @function
    .p2align 4
kiln_fiber_trampoline:
    movq %r12, %rdi
    movq %r13, %rsi
    andq $-16, %rsp
    call kiln_fiber_main
    movq %rax, %rsi
    jmp .Lrestore
    .size kiln_fiber_trampoline, . - kiln_fiber_trampoline

    .section .note.GNU-stack, "", @progbits
