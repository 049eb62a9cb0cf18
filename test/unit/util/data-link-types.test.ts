import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATA_LINK_TYPES as CLIENT_NAMES } from '../../../src/client/captures.js';
import { LINK_CAPTURE_SCHEMA } from '../../../src/daemon/schemas/lab.js';
import { NODE_CAPTURE_SCHEMA } from '../../../src/daemon/schemas/nio.js';
import { DATA_LINK_TYPES, DEFAULT_DATA_LINK_TYPE, PCAP_LINK_TYPES, pcapLinkType } from '../../../src/util/data-link-types.js';

describe('data link types', () => {
  it('decides a capture\'s pcap link type in one place: the named one, else Ethernet', () => {
    assert.equal(DEFAULT_DATA_LINK_TYPE, 'DLT_EN10MB');
    assert.equal(pcapLinkType(undefined), 1);
    assert.deepEqual(DATA_LINK_TYPES.map((name) => [name, pcapLinkType(name)]), [
      ['DLT_EN10MB', 1], ['DLT_PPP_SERIAL', 50], ['DLT_C_HDLC', 104], ['DLT_FRELAY', 107], ['DLT_ATM_RFC1483', 11],
    ]);
    assert.deepEqual(Object.keys(PCAP_LINK_TYPES), [...DATA_LINK_TYPES]);
  });

  it('is the list the CLI and both capture schemas take', () => {
    assert.equal(CLIENT_NAMES, DATA_LINK_TYPES);
    assert.equal(LINK_CAPTURE_SCHEMA.properties.data_link_type.enum, DATA_LINK_TYPES);
    assert.equal(NODE_CAPTURE_SCHEMA.properties.data_link_type.enum, DATA_LINK_TYPES);
  });
});
