/*
 * The front-end stage: Clang 19 in process (see frontend_shim.h for the contract).
 *
 * Why each piece is here:
 *  - CompilerInvocation::CreateFromArgs takes the same cc1 arguments as the command
 *    line, so the flags tested with clang-19 -cc1 are the flags used here.
 *  - The source and the embedded OpenCL base header live in an in-memory file system
 *    laid over the real one: nothing has to exist on disk, yet -I directories work.
 *  - One text printer feeds every diagnostic, including argument errors and the
 *    "N errors generated." line, into a string: the build log gets Clang's words
 *    verbatim and the host program's stderr stays clean.
 *  - EmitLLVMOnlyAction builds the module in the caller's LLVMContext, so the C
 *    stages can keep working on it without a bitcode round trip.
 *  - One OpenCL C rule Clang 19 does not enforce is checked on the AST beside code
 *    generation: a pipe may not be a member of a structure or union (OpenCL C 3.0
 *    §6.3.3.1: a pipe can only be a kernel or function parameter). Clang already
 *    refuses pipes as variables, pointers to pipes and read_write pipes.
 */
#include "frontend_shim.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Decl.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Options.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace
{

char *copy_text(const std::string &text)
{
    char *s = static_cast<char *>(std::malloc(text.size() + 1));
    if (s)
        std::memcpy(s, text.c_str(), text.size() + 1);
    return s;
}

/* Refuses structure and union members of pipe type (or arrays of them). */
class PipeMemberCheck : public clang::ASTConsumer
{
  public:
    explicit PipeMemberCheck(clang::DiagnosticsEngine &diags)
        : diags_(diags), id_(diags.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                                   "a pipe cannot be a member of a structure "
                                                   "or union"))
    {
    }

    void HandleTagDeclDefinition(clang::TagDecl *tag) override
    {
        auto *record = llvm::dyn_cast<clang::RecordDecl>(tag);
        if (!record)
            return;
        for (const clang::FieldDecl *field : record->fields())
            if (field->getType()->getBaseElementTypeUnsafe()->isPipeType())
                diags_.Report(field->getLocation(), id_);
    }

  private:
    clang::DiagnosticsEngine &diags_;
    unsigned id_;
};

/* Clang's code generation with PipeMemberCheck beside it. */
class KilnAction : public clang::EmitLLVMOnlyAction
{
  public:
    using clang::EmitLLVMOnlyAction::EmitLLVMOnlyAction;

  protected:
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                          llvm::StringRef file) override
    {
        std::unique_ptr<clang::ASTConsumer> codegen =
            clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file);
        if (!codegen)
            return nullptr;
        std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
        consumers.push_back(std::make_unique<PipeMemberCheck>(ci.getDiagnostics()));
        consumers.push_back(std::move(codegen));
        return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
    }
};

bool run_clang(llvm::LLVMContext &context, llvm::ArrayRef<const char *> args,
               const kiln_cc_vfile *files, size_t num_files, llvm::raw_ostream &log,
               std::unique_ptr<llvm::Module> &module)
{
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_opts(new clang::DiagnosticOptions());
    diag_opts->ShowColors = false;
    /* Honour the #line that names the source "program.cl", as the clang driver does. */
    diag_opts->ShowPresumedLoc = true;
    clang::TextDiagnosticPrinter printer(log, diag_opts.get());

    /* Argument errors are reported before the compiler instance exists. */
    llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
    clang::DiagnosticsEngine arg_diags(ids, diag_opts, &printer, false);
    auto invocation = std::make_shared<clang::CompilerInvocation>();
    if (!clang::CompilerInvocation::CreateFromArgs(*invocation, args, arg_diags))
        return false;

    clang::CompilerInstance ci;
    ci.setInvocation(std::move(invocation));
    ci.createDiagnostics(&printer, false);
    /* ExecuteAction prints "N errors generated." here; the default is stderr. */
    ci.setVerboseOutputStream(log);

    llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(
        new llvm::vfs::InMemoryFileSystem());
    for (size_t i = 0; i < num_files; i++) {
        /* Clang's lexer needs a NUL after the text; the embedded header has none. */
        llvm::StringRef data(files[i].data, files[i].size);
        memory->addFile(files[i].path, 0,
                        llvm::MemoryBuffer::getMemBufferCopy(data, files[i].path));
    }
    /*
     * A file system of this build's own, not getRealFileSystem(): that one is a static made on
     * first use and destroyed at exit, which a compile on the runtime's background builder
     * could then still be using (runtime/variant.c, builder_stop).
     */
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
        new llvm::vfs::OverlayFileSystem(llvm::vfs::createPhysicalFileSystem().release()));
    overlay->pushOverlay(memory);
    ci.createFileManager(overlay);

    KilnAction action(&context);
    if (!ci.ExecuteAction(action))
        return false;
    module = action.takeModule();
    return module != nullptr;
}

} // namespace

extern "C" enum kiln_cc_frontend_result
kiln_cc_frontend_compile(LLVMContextRef ctx, const char *const *args, size_t num_args,
                         const struct kiln_cc_vfile *files, size_t num_files, LLVMModuleRef *out,
                         char **diagnostics)
{
    std::string text;
    std::unique_ptr<llvm::Module> module;
    bool ok;
    {
        llvm::raw_string_ostream log(text);
        ok = run_clang(*llvm::unwrap(ctx), llvm::ArrayRef<const char *>(args, num_args), files,
                       num_files, log, module);
    }
    *diagnostics = copy_text(text);
    if (!*diagnostics)
        return KILN_CC_FRONTEND_NO_MEMORY;
    if (!ok)
        return KILN_CC_FRONTEND_ERROR;
    *out = llvm::wrap(module.release());
    return KILN_CC_FRONTEND_OK;
}

void kiln_cc_frontend_prepare(void)
{
    (void)clang::driver::getDriverOptTable();
}
