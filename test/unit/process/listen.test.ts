// The status of what Node's HTTP parser refuses before the app sees it (src/process/listen.ts,
// contract §1): each refusal read from the parser's error and the bytes it failed on.
import assert from 'node:assert/strict';
import { clientErrorStatus } from '../../../src/process/listen';

/** A parser error as Node raises it: its code, the read it failed on, where in it. */
const refusal = (code: string, packet?: string, bytesParsed?: number) =>
  Object.assign(new Error(code), {
    code,
    ...(packet === undefined ? {} : { rawPacket: Buffer.from(packet, 'latin1') }),
    ...(bytesParsed === undefined ? {} : { bytesParsed }),
  });
const status = (code: string, packet?: string, bytesParsed?: number) =>
  clientErrorStatus(refusal(code, packet, bytesParsed))[0];

describe('clientErrorStatus', () => {
  it('answers an unknown method in a well-formed request line 405', () => {
    assert.equal(status('HPE_INVALID_METHOD', 'BREW /pot HTTP/1.1\r\nHost: a\r\n\r\n'), 405);
  });

  it('answers bytes that are no request line 400, whatever the parser blamed', () => {
    assert.equal(status('HPE_INVALID_METHOD', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'), 400);
    assert.equal(status('HPE_INVALID_METHOD'), 400);
  });

  it('answers a well-formed version the server does not speak 505, a malformed one 400', () => {
    assert.equal(status('HPE_INVALID_VERSION', 'GET / HTTP/1.2\r\nHost: a\r\n\r\n'), 505);
    assert.equal(status('HPE_INVALID_VERSION', 'GET / HTTP/3.0\r\n\r\n'), 505);
    assert.equal(status('HPE_INVALID_VERSION', 'GET / HTTP/2\r\n\r\n'), 400);
    assert.equal(status('HPE_INVALID_VERSION', 'GET / HTTP/1.10\r\n\r\n'), 400);
  });

  it('answers the HTTP/2 connection preface 505', () => {
    assert.equal(status('HPE_PAUSED_H2_UPGRADE', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), 505);
  });

  it('answers a head too long 414 when its request line is, else 431', () => {
    const target = `/${'a'.repeat(9000)}`;
    assert.equal(status('HPE_HEADER_OVERFLOW', `GET ${target}`), 414);
    assert.equal(status('HPE_HEADER_OVERFLOW', `GET ${target} HTTP/1.1\r\nHost: a\r\n`), 414);
    assert.equal(
      status('HPE_HEADER_OVERFLOW', `GET /a HTTP/1.1\r\nX-Long: ${'b'.repeat(20000)}`),
      431,
    );
    assert.equal(status('HPE_HEADER_OVERFLOW', `X-Long: ${'b'.repeat(20000)}`), 431);
  });

  it('reads the request the parser failed on, not the pipelined one answered before it', () => {
    // Read from the start of the read, the good request line before would pass for a method.
    const answered = 'GET / HTTP/1.1\r\nHost: a\r\n\r\n';
    const packet = `${answered}\x16\x03\x01\x02\x00`;
    assert.equal(status('HPE_INVALID_METHOD', packet, answered.length + 1), 400);
  });

  it('answers a request that took too long 408, and anything else 400', () => {
    assert.equal(status('ERR_HTTP_REQUEST_TIMEOUT'), 408);
    assert.equal(status('HPE_INVALID_CHUNK_SIZE', 'GET / HTTP/1.1\r\n'), 400);
  });

  it('gives each status its reason phrase', () => {
    assert.deepEqual(clientErrorStatus(refusal('ERR_HTTP_REQUEST_TIMEOUT')), [
      408,
      'Request Timeout',
    ]);
    assert.deepEqual(clientErrorStatus(refusal('HPE_PAUSED_H2_UPGRADE')), [
      505,
      'HTTP Version Not Supported',
    ]);
  });
});
