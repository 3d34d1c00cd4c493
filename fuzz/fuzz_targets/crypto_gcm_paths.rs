#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| wisec_fuzz::crypto::gcm_paths(data));
