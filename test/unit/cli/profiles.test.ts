import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/errors.js';
import { isLoopbackUrl, selectProfile, unreachableHint } from '../../../src/client/active-profile.js';
import {
  allProfiles, checkProfileName, checkServerUrl, maskProfile, openProfileStore, readProfilesData, type ProfilesData,
} from '../../../src/client/profiles.js';
import { pathsUnder } from '../../../src/config/paths.js';
import { removeTempHome, tempHome } from '../../cli/helpers/cli.js';

const data: ProfilesData = {
  current: 'lab',
  profiles: {
    lab: { url: 'http://lab:3080', user: 'admin', password: 'pw', defaultProject: 'p1' },
    other: { url: 'https://other:443' },
  },
};

describe('selectProfile', () => {
  it('uses the saved current profile, else local', () => {
    assert.equal(selectProfile(data, { env: {} }).name, 'lab');
    assert.equal(selectProfile(data, { env: {} }).source, 'saved');
    const local = selectProfile({ profiles: {} }, { env: {} });
    assert.deepEqual([local.name, local.url, local.source], ['local', 'http://127.0.0.1:3080', 'default']);
  });

  it('--profile beats EMUCTL_PROFILE beats the current profile', () => {
    assert.equal(selectProfile(data, { profile: 'other', env: { EMUCTL_PROFILE: 'local' } }).name, 'other');
    assert.equal(selectProfile(data, { env: { EMUCTL_PROFILE: 'local' } }).name, 'local');
  });

  it('--url beats EMUCTL_URL beats the profile URL, keeping credentials and default project', () => {
    const flag = selectProfile(data, { url: 'http://flag:1', env: { EMUCTL_URL: 'http://env:2' } });
    assert.deepEqual([flag.url, flag.urlSource, flag.user, flag.password, flag.defaultProject], ['http://flag:1', 'flag', 'admin', 'pw', 'p1']);
    assert.equal(selectProfile(data, { env: { EMUCTL_URL: 'http://env:2/' } }).url, 'http://env:2');
  });

  it('an unknown profile is a usage error naming the known ones', () => {
    assert.throws(() => selectProfile(data, { profile: 'nope', env: {} }),
      (err: Error) => err instanceof UsageError && /no profile named "nope"; known: local, lab, other/.test(err.message));
  });

  it('a saved local entry overrides the built-in one', () => {
    const custom = { profiles: { local: { url: 'http://127.0.0.1:4000', defaultProject: 'x' } } };
    assert.deepEqual(allProfiles(custom).map((p) => [p.name, p.url]), [['local', 'http://127.0.0.1:4000']]);
  });
});

describe('profile checks', () => {
  it('accepts http(s) URLs and rejects others, and credentials in URLs', () => {
    assert.equal(checkServerUrl('http://h:3080/'), 'http://h:3080');
    assert.equal(checkServerUrl('https://h/gns3/'), 'https://h/gns3');
    assert.throws(() => checkServerUrl('ftp://h'), UsageError);
    assert.throws(() => checkServerUrl('not a url'), UsageError);
    assert.throws(() => checkServerUrl('http://u:p@h:3080'), /not in the URL/);
  });

  it('checks profile names', () => {
    checkProfileName('lab-2_b');
    assert.throws(() => checkProfileName('a.b'), UsageError);
    assert.throws(() => checkProfileName('-x'), UsageError);
  });

  it('masks passwords', () => {
    assert.equal(maskProfile({ name: 'a', url: 'http://h', password: 'secret' }).password, '********');
    assert.equal(maskProfile({ name: 'a', url: 'http://h' }).password, undefined);
  });

  it('hints at daemon start only for local URLs', () => {
    assert.ok(isLoopbackUrl('http://localhost:3080') && isLoopbackUrl('http://127.0.0.1:1') && isLoopbackUrl('http://[::1]:3080'));
    assert.equal(unreachableHint('http://127.0.0.1:3080'), "is the daemon running? run 'emuctl daemon start'");
    assert.equal(unreachableHint('http://127.0.0.1:4000'), "is the daemon running? run 'emuctl daemon start --port 4000'");
    assert.equal(unreachableHint('http://lab.example:3080'), undefined);
  });
});

describe('profile store', () => {
  const homes: string[] = [];
  after(() => homes.forEach(removeTempHome));

  it('creates the directory 0700 and keeps the file 0600 after every write, even with a lax umask', async () => {
    const home = join(tempHome(), 'nested', 'home');
    homes.push(join(home, '..', '..'));
    const paths = pathsUnder(home);
    const previous = process.umask(0o000);
    try {
      const store = await openProfileStore(paths);
      assert.equal(statSync(home).mode & 0o777, 0o700);
      store.save({ name: 'lab', url: 'http://lab:3080', user: 'u', password: 'pw' });
      assert.equal(statSync(store.file).mode & 0o777, 0o600);
      store.setCurrent('lab');
      store.remove('lab');
      assert.equal(statSync(store.file).mode & 0o777, 0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('round-trips through the plain reader, and removing the current profile resets it', async () => {
    const home = tempHome();
    homes.push(home);
    const paths = pathsUnder(home);
    assert.deepEqual(readProfilesData(paths), { profiles: {} });
    const store = await openProfileStore(paths);
    store.save({ name: 'lab', url: 'http://lab:3080', defaultProject: 'p' });
    store.setCurrent('lab');
    assert.deepEqual(readProfilesData(paths), { current: 'lab', profiles: { lab: { url: 'http://lab:3080', defaultProject: 'p' } } });
    store.remove('lab');
    assert.deepEqual(readProfilesData(paths), { current: undefined, profiles: {} });
  });
});
