// What the browser bundle gets instead of an OpenAPI document or the recorded examples
// (src/plugins/apiDocumentsServerOnly.ts): the reference they render is already in the HTML.
export default {};
