//! The `implicit-contact` command line.

fn main() {
    println!("implicit-contact: solver skeleton");
}
