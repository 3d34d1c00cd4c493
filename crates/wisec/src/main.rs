fn main() {
    std::process::exit(wisec::cli::main());
}
