package dev.ofl.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class VerbsExceptionTest {
    @Test
    void errnoMessageNamesCallCodeValuesAndFix() {
        VerbsException e = VerbsException.errno("ibv_reg_mr", Errno.ENOMEM, "length 4096", "raise ulimit -l");
        assertEquals("ibv_reg_mr(length 4096) failed: errno ENOMEM (12, Cannot allocate memory). Fix: raise ulimit -l",
                e.getMessage());
        assertEquals(Errno.ENOMEM, e.errno());
        assertEquals("ibv_reg_mr", e.function());
    }

    @Test
    void returnedCodeIsDecodedAsErrnoEitherSign() {
        VerbsException positive = VerbsException.returned("ibv_modify_qp", 22, "qp 17", "check the state");
        assertEquals("ibv_modify_qp(qp 17) failed: returned 22 EINVAL (22, Invalid argument). Fix: check the state",
                positive.getMessage());
        VerbsException negative = VerbsException.returned("_ibv_query_gid_table", -22, "max 4", "bigger");
        assertEquals(Errno.EINVAL, negative.errno());
        assertEquals(-22, negative.returnCode());
    }

    @Test
    void unknownErrnoStillDescribed() {
        assertEquals("errno 4000 (4000, Unknown error 4000)", Errno.describe(4000));
        assertEquals("ENOSYS (38, Function not implemented)", Errno.describe(Errno.ENOSYS));
    }
}
