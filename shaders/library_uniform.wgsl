// The shape library bound as a uniform buffer of UNIFORM_ROWS 16-byte rows (a uniform
// array's stride), the library's words first (`LibraryBinding::Uniform` in
// src/layout/shaders.rs), read through `library_u32`.

@group(0) @binding(1) var<uniform> library: array<vec4<u32>, UNIFORM_ROWS>;

fn library_u32(word: u32) -> u32 {
    return library[word >> 2u][word & 3u];
}
