#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| wisec_fuzz::capture::reader(data));
