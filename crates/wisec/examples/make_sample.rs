//! Writes the plaintext sample captures of the repository's `examples/`
//! directory: `cargo run -p wisec --example make_sample [DIR]`.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use wisec::capture::Format;
use wisec::sample::{write_sample, SampleOptions};

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("examples"));
    std::fs::create_dir_all(&dir)?;
    let samples = [
        (
            "sample.pcapng",
            SampleOptions {
                format: Format::Pcapng,
                link_type: 105,
                fcs: false,
                announce_fcs: true,
                data_frames: 8,
            },
        ),
        (
            "sample-radiotap-fcs.pcap",
            SampleOptions {
                format: Format::Pcap,
                link_type: 127,
                fcs: true,
                announce_fcs: true,
                data_frames: 8,
            },
        ),
    ];
    for (name, opts) in samples {
        let path = dir.join(name);
        write_sample(BufWriter::new(File::create(&path)?), opts)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
