//! Generates the griot.v1 client from protos/griot/v1 with protox (a protobuf compiler in Rust), so
//! no `protoc` is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = "../../protos";
    let files = [format!("{protos}/griot/v1/rules.proto")];
    for f in ["common.proto", "rules.proto"] {
        println!("cargo:rerun-if-changed={protos}/griot/v1/{f}");
    }
    let fds = protox::compile(&files, [protos])?;
    tonic_build::configure().build_server(false).compile_fds(fds)?;
    Ok(())
}
