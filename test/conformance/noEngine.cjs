// The engine rdf-test-suite asks for. The protocol and service description tests send HTTP
// requests to the endpoint named by -i; they never call the engine, so it runs nothing.
module.exports = {
  parse() {
    throw new Error('the protocol tests run against an HTTP endpoint, not this engine');
  },
  query() {
    throw new Error('the protocol tests run against an HTTP endpoint, not this engine');
  },
};
