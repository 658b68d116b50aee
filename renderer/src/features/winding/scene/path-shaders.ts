// The 3D view's two ways of drawing the path: tow bands (the ribbon built in the worker, narrowed
// here where not yet wound) and plain lines over the path's own arrays (the fast mode for
// million-line programs, laid on the mandrel's surface here: its radius sampled along the axis,
// so cones and domes are followed). Both colour the path by layer up to the scrub position and
// draw the rest as not yet wound.

const COMMON = /* glsl */ `
  uniform sampler2D layerColours; // RGBA8: colour, alpha 0 when the layer is hidden
  uniform sampler2D layerShape;   // RGBA32F: lift above the mandrel, first vertex, vertex count, lays tow (0/1)
  uniform sampler2D profile;      // R32F: the surface radius, evenly along the axis
  uniform vec3 profileRange;      // first x, step, samples
  uniform float thickness;
  uniform float scrub;

  vec4 tableAt(sampler2D table, uint k) {
    int i = int(k);
    return texelFetch(table, ivec2(i % 1024, i / 1024), 0);
  }

  float surfaceRadius(float x) {
    float last = profileRange.z - 1.0;
    float f = clamp((x - profileRange.x) / profileRange.y, 0.0, last);
    float i = floor(f);
    float j = min(i + 1.0, last);
    float a = texelFetch(profile, ivec2(int(i), 0), 0).r;
    float b = texelFetch(profile, ivec2(int(j), 0), 0).r;
    return mix(a, b, f - i);
  }

  // dr/dx of the surface at x: the slope between the two samples surfaceRadius interpolates.
  float surfaceSlope(float x) {
    float last = profileRange.z - 1.0;
    float f = clamp((x - profileRange.x) / profileRange.y, 0.0, last);
    float i = min(floor(f), last - 1.0);
    float a = texelFetch(profile, ivec2(int(i), 0), 0).r;
    float b = texelFetch(profile, ivec2(int(i) + 1, 0), 0).r;
    return (b - a) / profileRange.y;
  }

  // The point of the path's vertex v (at the preview's radius) moved onto the surface, lifted.
  vec3 onSurface(vec3 v, float lift) {
    float r = length(v.yz);
    vec2 around = r > 0.0 ? v.yz / r : vec2(1.0, 0.0);
    return vec3(v.x, around * (surfaceRadius(v.x) + lift));
  }
`;

export const BAND_VERTEX_SHADER = /* glsl */ `
  ${COMMON}
  uniform float pendingWidth;
  // Per ribbon vertex (built in the worker, ribbon.ts): the path's point on the surface is
  // position, half the band across the path is across; even vertices lie left, odd right.
  // Integer attributes (bound with vertexAttribIPointer) go to the GPU as they are; a 16-bit value
  // read as a float would be converted on the CPU at every draw by some drivers (software GL).
  attribute vec3 across;
  attribute uint command;
  attribute uint layer;
  varying vec3 vColour;
  varying float vAcross;
  varying float vShade;
  flat varying float vDone;
  flat varying float vVisible;

  void main() {
    vec4 shape = tableAt(layerShape, layer);
    vec4 look = tableAt(layerColours, layer);
    bool done = float(command) <= scrub + 0.5;
    float side = gl_VertexID % 2 == 0 ? -1.0 : 1.0;
    // The surface's outward normal here (a body of revolution: radial, tilted by the slope).
    float r = length(position.yz);
    vec2 around = r > 0.0 ? position.yz / r : vec2(1.0, 0.0);
    vec3 n = normalize(normalMatrix * normalize(vec3(-surfaceSlope(position.x), around)));
    vec4 eye = modelViewMatrix * vec4(position, 1.0);
    // Tow on the far side of the solid mandrel cannot be seen: its band is given no width, so its
    // triangles have no area and cost the rasteriser nothing (half the path, in software GL the
    // frame's largest cost). A segment across the silhouette tapers to its visible end.
    bool far = dot(n, eye.xyz) > 0.05 * length(eye.xyz);
    // Not yet wound: a narrower flat strip where the tow will go (on what is wound before it).
    float width = far ? 0.0 : shape.w * (done ? 1.0 : pendingWidth);
    vec3 p = position + across * side * width;
    vColour = look.rgb;
    vVisible = look.a;
    vDone = done ? 1.0 : 0.0;
    vAcross = side;
    vShade = 0.8 + 0.2 * max(dot(n, normalize(vec3(0.35, 0.6, 0.72))), 0.0);
    gl_Position = projectionMatrix * modelViewMatrix * vec4(p, 1.0);
  }
`;

export const BAND_FRAGMENT_SHADER = /* glsl */ `
  uniform vec3 pending;
  varying vec3 vColour;
  varying float vAcross;
  varying float vShade;
  flat varying float vDone;
  flat varying float vVisible;
  void main() {
    if (vVisible < 0.5) discard;
    // Not yet wound: a narrow flat strip in one colour, never a band of a layer's.
    if (vDone < 0.5) {
      gl_FragColor = vec4(pending, 1.0);
      return;
    }
    // Darker towards both edges, so neighbouring bands of one colour stay apart.
    float edge = smoothstep(0.55, 1.0, abs(vAcross));
    gl_FragColor = vec4(vColour * vShade * (1.0 - 0.3 * edge), 1.0);
  }
`;

export const LINE_VERTEX_SHADER = /* glsl */ `
  ${COMMON}
  // Uint32 attributes reach the shader as integers (three binds them with vertexAttribIPointer).
  attribute uint command;
  attribute uint layer;
  varying vec4 vLayer;
  flat varying float vDone;
  void main() {
    vec4 shape = tableAt(layerShape, layer);
    vLayer = tableAt(layerColours, layer);
    vDone = float(command) <= scrub + 0.5 ? 1.0 : 0.0;
    vec3 p = onSurface(position, shape.x + thickness * 0.5);
    gl_Position = projectionMatrix * modelViewMatrix * vec4(p, 1.0);
  }
`;

export const LINE_FRAGMENT_SHADER = /* glsl */ `
  uniform vec3 pending;
  varying vec4 vLayer;
  flat varying float vDone;
  void main() {
    if (vLayer.a < 0.5) discard;
    // Done up to the scrub position in the layer's colour; the rest in the pending colour.
    gl_FragColor = vDone > 0.5 ? vec4(vLayer.rgb, 1.0) : vec4(pending, 1.0);
  }
`;
