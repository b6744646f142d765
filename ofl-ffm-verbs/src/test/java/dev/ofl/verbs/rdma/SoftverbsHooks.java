package dev.ofl.verbs.rdma;

import dev.ofl.verbs.VerbsLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/** softverbs' own exports (test hooks and diagnostics, outside libibverbs' versions), for the tests that use them. */
final class SoftverbsHooks {
    private SoftverbsHooks() {
    }

    /**
     * A downcall to softverbs' export {@code name} in the configured library.
     *
     * @param why what the test needs it for, for the failure when the library is not softverbs
     */
    @SuppressWarnings("restricted")
    static MethodHandle find(String name, FunctionDescriptor descriptor, String why) {
        SymbolLookup lookup = SymbolLookup.libraryLookup(Path.of(VerbsLibrary.configuredLibrary()), Arena.global());
        MemorySegment symbol = lookup.find(name).orElseThrow(() -> new AssertionError(why + "; "
                + VerbsLibrary.configuredLibrary() + " has no " + name + ": it is not softverbs"));
        return Linker.nativeLinker().downcallHandle(symbol, descriptor);
    }
}
