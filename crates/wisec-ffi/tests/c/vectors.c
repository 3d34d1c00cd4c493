/*
 * Known-answer vectors through include/wisec.h and libwisec_ffi.a: CCM
 * (RFC 3610 section 8, NIST SP 800-38C Appendix C, ...) and IEEE 802.11
 * CCMP. Reads a vector file (one vector per line, hex fields, "-" for an
 * empty field):
 *
 *   ccm NAME KEY NONCE AAD PLAINTEXT CIPHERTEXT TAG M L
 *   ccmp NAME TK PN PLAINTEXT_MPDU PROTECTED_MPDU
 *
 * Each vector is encrypted and compared, decrypted and compared, and run
 * once more with a flipped octet, which must fail to verify.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wisec.h"

#define MAX 4096

static size_t unhex(const char *s, uint8_t *out, size_t cap) {
    if (strcmp(s, "-") == 0)
        return 0;
    size_t n = strlen(s) / 2;
    if (n > cap || strlen(s) % 2)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return (size_t)-1;
        out[i] = (uint8_t)v;
    }
    return n;
}

static int check_ccm(char **f) {
    static uint8_t key[64], nonce[16], aad[MAX], pt[MAX], ct[MAX], tag[16];
    static uint8_t buf[MAX], got_tag[16];
    size_t kl = unhex(f[2], key, sizeof key), nl = unhex(f[3], nonce, sizeof nonce);
    size_t al = unhex(f[4], aad, sizeof aad), pl = unhex(f[5], pt, sizeof pt);
    size_t cl = unhex(f[6], ct, sizeof ct), tl = unhex(f[7], tag, sizeof tag);
    size_t m = (size_t)atoi(f[8]), l = (size_t)atoi(f[9]);
    if (kl == (size_t)-1 || nl == (size_t)-1 || al == (size_t)-1 || pl == (size_t)-1 ||
        cl != pl || tl != m)
        return 0;
    wisec_ccm ctx;
    if (wisec_ccm_init(&ctx, key, kl, m, l) != WISEC_OK)
        return 0;
    memcpy(buf, pt, pl);
    int ok = wisec_ccm_encrypt(&ctx, nonce, nl, aad, al, buf, pl, got_tag, m) == WISEC_OK &&
             memcmp(buf, ct, pl) == 0 && memcmp(got_tag, tag, m) == 0;
    ok = ok && wisec_ccm_decrypt(&ctx, nonce, nl, aad, al, buf, pl, tag, m) == WISEC_OK &&
         memcmp(buf, pt, pl) == 0;
    /* A flipped ciphertext octet (or tag octet for an empty message). */
    memcpy(buf, ct, pl);
    memcpy(got_tag, tag, m);
    if (pl > 0)
        buf[0] ^= 1;
    else
        got_tag[0] ^= 1;
    ok = ok && wisec_ccm_decrypt(&ctx, nonce, nl, aad, al, buf, pl, got_tag, m) == WISEC_ERR_AUTH;
    /* Wrong sizes are refused, not read past. */
    ok = ok && wisec_ccm_encrypt(&ctx, nonce, nl + 1, aad, al, buf, pl, got_tag, m) == WISEC_ERR_PARAM;
    wisec_ccm_wipe(&ctx);
    ok = ok && wisec_ccm_encrypt(&ctx, nonce, nl, aad, al, buf, pl, got_tag, m) == WISEC_ERR_PARAM;
    return ok;
}

static int check_ccmp(char **f) {
    static uint8_t tk[32], pnb[6], plain[MAX], prot[MAX], out[MAX + 32];
    size_t kl = unhex(f[2], tk, sizeof tk), pnl = unhex(f[3], pnb, sizeof pnb);
    size_t pl = unhex(f[4], plain, sizeof plain), el = unhex(f[5], prot, sizeof prot);
    if (kl == (size_t)-1 || pnl != 6 || pl == (size_t)-1 || el == (size_t)-1)
        return 0;
    uint64_t pn = 0;
    for (size_t i = 0; i < 6; i++)
        pn = pn << 8 | pnb[i];
    wisec_ccmp ctx;
    if (wisec_ccmp_init(&ctx, tk, kl) != WISEC_OK)
        return 0;
    size_t n = 0;
    int ok = wisec_ccmp_protect(&ctx, plain, pl, pn, 0, out, sizeof out, &n) == WISEC_OK &&
             n == el && memcmp(out, prot, el) == 0;
    uint64_t got_pn = 0;
    ok = ok && wisec_ccmp_unprotect(&ctx, out, n, &n, &got_pn) == WISEC_OK && n == pl &&
         got_pn == pn && memcmp(out, plain, pl) == 0;
    memcpy(out, prot, el);
    out[el - 1] ^= 0x40;
    ok = ok && wisec_ccmp_unprotect(&ctx, out, el, &n, &got_pn) == WISEC_ERR_AUTH;
    ok = ok && wisec_ccmp_protect(&ctx, plain, pl, pn, 0, out, pl, &n) == WISEC_ERR_BUFFER;
    wisec_ccmp_wipe(&ctx);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTOR_FILE\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    static char line[4 * MAX + 512];
    int passed = 0, failed = 0;
    while (fgets(line, sizeof line, in)) {
        char *f[12];
        int nf = 0;
        for (char *t = strtok(line, " \n"); t && nf < 12; t = strtok(NULL, " \n"))
            f[nf++] = t;
        if (nf == 0)
            continue;
        int ok;
        if (strcmp(f[0], "ccm") == 0 && nf == 10)
            ok = check_ccm(f);
        else if (strcmp(f[0], "ccmp") == 0 && nf == 6)
            ok = check_ccmp(f);
        else {
            fprintf(stderr, "bad line: %s\n", f[0]);
            return 2;
        }
        printf("%s %s %s\n", ok ? "ok  " : "FAIL", f[0], f[1]);
        ok ? passed++ : failed++;
    }
    fclose(in);
    printf("wisec %s: %d vectors passed, %d failed\n", wisec_version(), passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
