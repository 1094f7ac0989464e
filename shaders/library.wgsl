// The shape library as the bounds, narrow and query stages read it: one buffer of
// 32-bit words holding the PackedShape records from word 0, the PolygonVertex records
// from params.vertex_base and the bitmask words from params.word_base, each laid out as
// its struct in src/layout/packed.rs. One buffer rather than three keeps every kernel within
// WebGPU's default of 8 storage buffers per stage. Word k is library_u32(k), declared
// before this file with the buffer's binding (binding 1 of every stage that reads it),
// a storage or a uniform buffer: `LibraryBinding` in src/layout/shaders.rs says which and why.

fn library_f32(word: u32) -> f32 {
    return bitcast<f32>(library_u32(word));
}

fn library_vec2(word: u32) -> vec2<f32> {
    return vec2<f32>(library_f32(word), library_f32(word + 1u));
}

// Shape `s` of the library.
fn library_shape(s: u32) -> PackedShape {
    let w = s * SHAPE_WORDS;
    return PackedShape(library_vec2(w), library_vec2(w + 2u), library_u32(w + 4u),
        library_u32(w + 5u), library_u32(w + 6u), library_u32(w + 7u), library_u32(w + 8u),
        library_f32(w + 9u), library_u32(w + 10u));
}

// The radius of a circle about a shape's origin that holds it at every angle. Twin of
// PackedShape::reach.
fn shape_reach(shape: PackedShape) -> f32 {
    return length(max(abs(shape.bounds_min), abs(shape.bounds_max)));
}

// The kind of shape `s` alone (SHAPE_*), one word rather than the whole record.
fn library_kind(s: u32) -> u32 {
    return library_u32(s * SHAPE_WORDS + 4u);
}

// Whether polygon `s` is the rectangle of its own bounds (PackedShape::rectangle).
fn library_is_rectangle(s: u32) -> bool {
    return library_u32(s * SHAPE_WORDS + 10u) != 0u;
}

// The radius of circle or capsule `s` (0 for a polygon): one word of its record.
fn library_radius(s: u32) -> f32 {
    return library_f32(s * SHAPE_WORDS + 9u);
}

// The box of shape `s` around its origin, unrotated: four words of its record.
fn library_bounds(s: u32) -> Aabb {
    let w = s * SHAPE_WORDS;
    return Aabb(library_vec2(w), library_vec2(w + 2u));
}

// The vertices of polygon `s`, first and past the last: two words of its record.
fn library_vertices(s: u32) -> vec2<u32> {
    let w = s * SHAPE_WORDS;
    let first = library_u32(w + 5u);
    return vec2<u32>(first, first + library_u32(w + 6u));
}

// Polygon vertex `v` of the library (the shape's `first` plus its index).
fn library_vertex(v: u32) -> PolygonVertex {
    let w = params.vertex_base + v * VERTEX_WORDS;
    return PolygonVertex(library_vec2(w), library_vec2(w + 2u));
}

// Bitmask word `k` of the library (the shape's `first` plus its index).
fn library_word(k: u32) -> u32 {
    return library_u32(params.word_base + k);
}
