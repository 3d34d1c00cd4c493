/*
 * The smallest C surface wisec needs from Intel's ipsec-mb: the job API is
 * a set of macros over function pointers inside IMB_MGR, so calling it
 * from C keeps the struct layout of the installed header authoritative.
 *
 * Every function takes plain pointers and lengths; the Rust side owns all
 * memory and checks lengths before calling.
 */
#include <stddef.h>
#include <stdint.h>
#include <intel-ipsec-mb.h>

#if !defined(IMB_VERSION_NUM) || IMB_VERSION_NUM < IMB_VERSION(1, 0, 0)
#error "ipsec-mb 1.0 or newer is needed"
#endif

/* One CCM message: CCMP framing (13-byte nonce, AAD, tag after the body). */
struct wisec_imb_ccm_msg {
        const uint8_t *src;
        uint8_t *dst;
        uint64_t len;
        const uint8_t *nonce;
        uint64_t nonce_len;
        const uint8_t *aad;
        uint64_t aad_len;
        uint8_t *tag;
};

const char *wisec_imb_header_version(void)
{
        return IMB_VERSION_STR;
}

const char *wisec_imb_library_version(void)
{
        return imb_get_version_str();
}

/*
 * Allocates a manager for the code path `want` (an IMB_ARCH value: SSE,
 * AVX2 or AVX512), or lets the library pick its best path (want == 0).
 * The library refuses a path the CPU lacks (imb_get_errno), and then
 * NULL is returned.
 */
IMB_MGR *wisec_imb_new(int want, int *arch)
{
        IMB_MGR *m = alloc_mb_mgr(0);
        IMB_ARCH a = IMB_ARCH_NONE;

        if (m == NULL)
                return NULL;
        switch (want) {
        case 0:
                init_mb_mgr_auto(m, &a);
                break;
        case IMB_ARCH_SSE:
                init_mb_mgr_sse(m);
                a = IMB_ARCH_SSE;
                break;
        case IMB_ARCH_AVX2:
                init_mb_mgr_avx2(m);
                a = IMB_ARCH_AVX2;
                break;
        case IMB_ARCH_AVX512:
                init_mb_mgr_avx512(m);
                a = IMB_ARCH_AVX512;
                break;
        default:
                break;
        }
        if (imb_get_errno(m) != 0 || a == IMB_ARCH_NONE) {
                free_mb_mgr(m);
                return NULL;
        }
        *arch = (int)a;
        return m;
}

void wisec_imb_free(IMB_MGR *m)
{
        if (m != NULL)
                free_mb_mgr(m);
}

/* AES key expansion; enc and dec need 16 * 15 bytes, 16-byte aligned. */
int wisec_imb_keyexp(IMB_MGR *m, const uint8_t *key, uint64_t key_len,
                     void *enc, void *dec)
{
        if (key_len == 16)
                IMB_AES_KEYEXP_128(m, key, enc, dec);
        else if (key_len == 32)
                IMB_AES_KEYEXP_256(m, key, enc, dec);
        else
                return -1;
        return 0;
}

/* Counts a job handed back by the manager; -1 marks a failed job. */
static int take(IMB_JOB *job, uint64_t *done, int64_t *failed)
{
        if (job == NULL)
                return 0;
        if (job->status != IMB_STATUS_COMPLETED && *failed < 0)
                *failed = (int64_t)(uintptr_t)job->user_data;
        (*done)++;
        return 1;
}

/*
 * Runs n CCM messages through the multi-buffer manager: every message is
 * submitted as its own job (lanes of the AVX-512/AVX2/SSE engines fill up
 * and run side by side), then the manager is flushed.
 *
 * encrypt != 0: src is the plaintext, dst gets the ciphertext and tag the
 * MIC. encrypt == 0: src is the ciphertext, dst gets the plaintext and tag
 * the computed MIC (the caller compares it).
 *
 * Returns -1 if all n jobs completed, else the index of the first job
 * that failed, or n when the manager lost a job.
 */
int64_t wisec_imb_ccm(IMB_MGR *m, const void *enc_keys, uint64_t key_len,
                      int encrypt, uint64_t tag_len,
                      const struct wisec_imb_ccm_msg *msgs, uint64_t n)
{
        uint64_t done = 0;
        int64_t failed = -1;
        uint64_t i;

        for (i = 0; i < n; i++) {
                const struct wisec_imb_ccm_msg *msg = &msgs[i];
                IMB_JOB *job = IMB_GET_NEXT_JOB(m);

                job->cipher_mode = IMB_CIPHER_CCM;
                job->hash_alg = IMB_AUTH_AES_CCM;
                if (encrypt) {
                        job->cipher_direction = IMB_DIR_ENCRYPT;
                        job->chain_order = IMB_ORDER_HASH_CIPHER;
                } else {
                        job->cipher_direction = IMB_DIR_DECRYPT;
                        job->chain_order = IMB_ORDER_CIPHER_HASH;
                }
                job->enc_keys = enc_keys;
                job->dec_keys = enc_keys;
                job->key_len_in_bytes = key_len;
                job->src = msg->src;
                job->dst = msg->dst;
                job->cipher_start_src_offset_in_bytes = 0;
                job->msg_len_to_cipher_in_bytes = msg->len;
                job->hash_start_src_offset_in_bytes = 0;
                job->msg_len_to_hash_in_bytes = msg->len;
                job->iv = msg->nonce;
                job->iv_len_in_bytes = msg->nonce_len;
                job->u.CCM.aad = msg->aad;
                job->u.CCM.aad_len_in_bytes = msg->aad_len;
                job->auth_tag_output = msg->tag;
                job->auth_tag_output_len_in_bytes = tag_len;
                job->user_data = (void *)(uintptr_t)i;
                take(IMB_SUBMIT_JOB(m), &done, &failed);
        }
        while (take(IMB_FLUSH_JOB(m), &done, &failed))
                ;
        if (failed >= 0)
                return failed;
        if (done != n)
                return (int64_t)n;
        return -1;
}

/* One AES-GCM message: 12-byte IV, AAD, 16-byte tag. */
struct wisec_imb_gcm_msg {
        const uint8_t *src;
        uint8_t *dst;
        uint64_t len;
        const uint8_t *iv;
        const uint8_t *aad;
        uint64_t aad_len;
        uint8_t *tag;
};

/* Size of the precomputed GCM key (round keys and hash key powers). */
uint64_t wisec_imb_gcm_key_size(void)
{
        return sizeof(struct gcm_key_data);
}

/* Expands a 16- or 32-byte key into kd (64-byte aligned, size above). */
int wisec_imb_gcm_pre(IMB_MGR *m, const uint8_t *key, uint64_t key_len,
                      void *kd)
{
        if (key_len == 16)
                IMB_AES128_GCM_PRE(m, key, kd);
        else if (key_len == 32)
                IMB_AES256_GCM_PRE(m, key, kd);
        else
                return -1;
        return 0;
}

/*
 * Runs n AES-GCM messages through the direct GCM API of the manager's
 * code path (GCM is a single-buffer algorithm in ipsec-mb: each message
 * runs on its own, with the whole vector width). encrypt != 0: dst gets the ciphertext, tag the tag;
 * encrypt == 0: dst gets the plaintext and tag the computed tag (the
 * caller compares).
 */
void wisec_imb_gcm(IMB_MGR *m, const void *kd, uint64_t key_len,
                   int encrypt, const struct wisec_imb_gcm_msg *msgs,
                   uint64_t n)
{
        struct gcm_context_data ctx;
        uint64_t i;

        for (i = 0; i < n; i++) {
                const struct wisec_imb_gcm_msg *g = &msgs[i];

                if (key_len == 16 && encrypt)
                        IMB_AES128_GCM_ENC(m, kd, &ctx, g->dst, g->src, g->len,
                                           g->iv, g->aad, g->aad_len, g->tag,
                                           16);
                else if (key_len == 16)
                        IMB_AES128_GCM_DEC(m, kd, &ctx, g->dst, g->src, g->len,
                                           g->iv, g->aad, g->aad_len, g->tag,
                                           16);
                else if (encrypt)
                        IMB_AES256_GCM_ENC(m, kd, &ctx, g->dst, g->src, g->len,
                                           g->iv, g->aad, g->aad_len, g->tag,
                                           16);
                else
                        IMB_AES256_GCM_DEC(m, kd, &ctx, g->dst, g->src, g->len,
                                           g->iv, g->aad, g->aad_len, g->tag,
                                           16);
        }
}
