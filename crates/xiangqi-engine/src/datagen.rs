pub fn run(_args: &[String]) -> Result<(), String> {
    Err("todo".into())
}
