// The shape library bound as a storage buffer of words (`LibraryBinding::Storage` in
// src/layout/shaders.rs), read through `library_u32`.

@group(0) @binding(1) var<storage, read> library: array<u32>;

fn library_u32(word: u32) -> u32 {
    return library[word];
}
