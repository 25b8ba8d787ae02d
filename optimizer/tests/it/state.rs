//! The secure on-disk state: private folders, the cache key, entries, locks.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use optimizer::state::{Clock, KeyedHasher, Lookup, MissReason, StateDir, StateError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Value {
    user: String,
    n: u32,
}

fn value() -> Value {
    Value {
        user: "AIDAEXAMPLE".into(),
        n: 7,
    }
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).expect("stat").mode() & 0o7777
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as u64
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[test]
fn open_creates_a_private_folder_and_tightens_an_existing_one() {
    let tmp = tempfile::tempdir().expect("tempdir");

    let fresh = tmp.path().join("a/b/sky");
    StateDir::open(&fresh).expect("open fresh");
    assert_eq!(mode(&fresh), 0o700);

    let loose = tmp.path().join("loose");
    fs::create_dir(&loose).expect("mkdir");
    fs::set_permissions(&loose, fs::Permissions::from_mode(0o755)).expect("chmod");
    let dir = StateDir::open(&loose).expect("open loose");
    assert_eq!(mode(&loose), 0o700);
    dir.store("kube-nodes", 1).expect("store");
    assert_eq!(mode(&loose.join("kube-nodes")), 0o700);

    let file = tmp.path().join("file");
    fs::write(&file, b"x").expect("write");
    let err = StateDir::open(&file).expect_err("a file is not a state folder");
    assert!(matches!(err, StateError::WrongFileType { .. }), "{err:?}");
}

#[test]
fn open_refuses_a_folder_owned_by_another_user() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Root can hand a folder to `nobody`; anyone else can point at `/`.
    let foreign = if is_root() {
        let dir = tmp.path().join("foreign");
        fs::create_dir(&dir).expect("mkdir");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).expect("chown");
        dir
    } else {
        Path::new("/").to_path_buf()
    };

    let before = mode(&foreign);

    let err = StateDir::open(&foreign).expect_err("foreign folder must be refused");

    assert!(matches!(err, StateError::ForeignOwner { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&foreign.display().to_string()),
        "message names the path: {message}"
    );
    assert_eq!(mode(&foreign), before, "a refused folder is left untouched");
}

#[test]
fn cache_key_is_private_stable_and_redacted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = StateDir::open(tmp.path().join("sky")).expect("open");

    let first = dir.hasher().expect("hasher").digest(&[("k", b"v")]);
    let again = StateDir::open(tmp.path().join("sky"))
        .expect("reopen")
        .hasher()
        .expect("hasher");

    assert_eq!(first, again.digest(&[("k", b"v")]));
    let key_path = tmp.path().join("sky/cache.key");
    assert_eq!(mode(&key_path), 0o600);
    let key = fs::read(&key_path).expect("read key");
    assert_eq!(key.len(), 32);
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    assert!(
        !format!("{again:?}").contains(&hex[..16]),
        "Debug must not print the key"
    );
}

#[test]
fn a_damaged_cache_key_is_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = StateDir::open(tmp.path()).expect("open");
    fs::write(tmp.path().join("cache.key"), b"short").expect("write");

    let hasher = dir.hasher().expect("hasher");

    let key = fs::read(tmp.path().join("cache.key")).expect("read");
    assert_eq!(key.len(), 32);
    assert_eq!(
        hasher.digest(&[]),
        KeyedHasher::from_key(key.try_into().expect("32 bytes")).digest(&[])
    );
}

#[test]
fn concurrent_first_runs_agree_on_one_key() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sky");
    let barrier = Arc::new(Barrier::new(16));

    let digests: Vec<String> = (0..16)
        .map(|_| {
            let (root, barrier) = (root.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                StateDir::open(&root)
                    .expect("open")
                    .hasher()
                    .expect("hasher")
                    .digest(&[("id", b"x")])
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("thread"))
        .collect();

    assert!(
        digests.windows(2).all(|w| w[0] == w[1]),
        "all runs use one key: {digests:?}"
    );
    let names: Vec<String> = fs::read_dir(&root)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["cache.key".to_string()],
        "no temporary files left behind"
    );
}

#[test]
fn digest_is_full_length_keyed_and_unambiguous() {
    let h = KeyedHasher::from_key([1; 32]);
    let other = KeyedHasher::from_key([2; 32]);
    let d = |fields: &[(&str, &[u8])]| h.digest(fields);

    let base = d(&[("a", b"bc")]);
    assert_eq!(base.len(), 64);
    assert!(
        base.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(base, d(&[("a", b"bc")]), "deterministic");
    assert_ne!(base, other.digest(&[("a", b"bc")]), "keyed");

    let distinct = [
        d(&[("a", b"bc")]),
        d(&[("ab", b"c")]),
        d(&[("a", b"b"), ("c", b"")]),
        d(&[("a", b"bc"), ("", b"")]),
        d(&[("a", b"cb")]),
        d(&[("b", b"bc")]),
        d(&[]),
        d(&[("", b"")]),
    ];
    for (i, x) in distinct.iter().enumerate() {
        for y in &distinct[i + 1..] {
            assert_ne!(x, y, "encodings must not collide");
        }
    }
}

#[test]
fn put_then_get_round_trips_with_age_and_private_modes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t0 = SystemTime::now();
    let at = |offset: Duration| Clock::from_fn(move || t0 + offset);
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store")
        .with_clock(at(Duration::ZERO));

    store
        .put("k1", &value(), Duration::from_secs(600))
        .expect("put");

    assert_eq!(
        store.get::<Value>("k1"),
        Lookup::Hit {
            value: value(),
            age: Duration::ZERO
        }
    );
    let later = store.clone().with_clock(at(Duration::from_secs(30)));
    assert_eq!(
        later.get::<Value>("k1"),
        Lookup::Hit {
            value: value(),
            age: Duration::from_secs(30)
        }
    );
    let entry = store.entry_path("k1").expect("path");
    assert_eq!(mode(&entry), 0o600);
    assert_eq!(store.keys().expect("keys"), vec!["k1".to_string()]);
    let leftovers: Vec<_> = fs::read_dir(store.dir())
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A put over an existing entry (swapped into place, the old file then
/// removed): the new value, a new private file, nothing left beside it.
#[test]
fn a_put_over_an_entry_replaces_it_and_leaves_nothing_beside_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    let entry = store.entry_path("k").expect("path");
    store
        .put("k", &value(), Duration::from_secs(600))
        .expect("first put");
    let first_inode = fs::metadata(&entry).expect("stat").ino();
    let mut second = value();
    second.n = 8;
    store
        .put("k", &second, Duration::from_secs(600))
        .expect("second put");
    assert!(matches!(store.get::<Value>("k"), Lookup::Hit { value, .. } if value == second));
    assert_ne!(fs::metadata(&entry).expect("stat").ino(), first_inode);
    assert_eq!(mode(&entry), 0o600);
    assert_eq!(temp_files(store.dir()), Vec::<String>::new());
    assert_eq!(store.keys().expect("keys"), vec!["k".to_string()]);
}

/// A directory where an entry belongs is not swapped aside (a swap would
/// move it, and everything in it, to a temporary name): the put fails as a
/// rename over a directory does, and the directory stays where it was.
#[test]
fn a_directory_where_an_entry_belongs_is_refused_and_left_in_place() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    let entry = store.entry_path("k").expect("path");
    fs::create_dir(&entry).expect("mkdir");
    fs::write(entry.join("inside"), b"kept").expect("write");
    assert!(store.put("k", &value(), Duration::from_secs(600)).is_err());
    assert_eq!(
        fs::read(entry.join("inside")).expect("still there"),
        b"kept"
    );
    assert_eq!(temp_files(store.dir()), Vec::<String>::new());
}

#[test]
fn damaged_entries_are_misses_and_the_next_put_heals_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    store
        .put("k", &value(), Duration::from_secs(600))
        .expect("put");
    let path = store.entry_path("k").expect("path");
    let valid = fs::read_to_string(&path).expect("read");
    let now = now_ms();
    let entry = |schema: u32, kind: &str, fetched: u64, expires: u64| {
        format!(
            r#"{{"schema":{schema},"kind":"{kind}","fetched_at_unix_ms":{fetched},"expires_at_unix_ms":{expires},"value":{{"user":"u","n":1}}}}"#
        )
    };
    let cases: Vec<(&str, Option<String>, MissReason)> = vec![
        ("absent", None, MissReason::Absent),
        ("empty", Some(String::new()), MissReason::Empty),
        ("whitespace", Some("  \n".into()), MissReason::Empty),
        (
            "truncated",
            Some(valid[..valid.len() / 2].to_string()),
            MissReason::Truncated,
        ),
        (
            "garbage",
            Some("{not json at all".replace('{', "x")),
            MissReason::Unparsable,
        ),
        (
            "not an entry",
            Some(r#"{"schema":1}"#.into()),
            MissReason::Unparsable,
        ),
        (
            "wrong value shape",
            Some(valid.replace(r#""n":7"#, r#""n":"seven""#)),
            MissReason::Unparsable,
        ),
        (
            "wrong schema",
            Some(entry(2, "identity", now, now + 600_000)),
            MissReason::WrongSchema,
        ),
        (
            "wrong kind",
            Some(entry(1, "kube-nodes", now, now + 600_000)),
            MissReason::WrongKind,
        ),
        (
            "future dated",
            Some(entry(1, "identity", now + 3_600_000, now + 7_200_000)),
            MissReason::FutureDated,
        ),
        (
            "expired",
            Some(entry(1, "identity", now - 7_200_000, now - 1)),
            MissReason::Expired,
        ),
    ];

    for (name, contents, expected) in cases {
        match &contents {
            Some(text) => fs::write(&path, text).expect("write"),
            None => fs::remove_file(&path).expect("rm"),
        }

        assert_eq!(
            store.get::<Value>("k"),
            Lookup::Miss(expected),
            "case {name}"
        );

        store
            .put("k", &value(), Duration::from_secs(600))
            .expect("put");
        assert!(
            matches!(store.get::<Value>("k"), Lookup::Hit { .. }),
            "case {name} healed"
        );
        assert_eq!(mode(&path), 0o600, "case {name}");
    }
}

#[test]
fn entries_expire_at_their_deadline() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");

    store
        .put("k", &value(), Duration::from_secs(600))
        .expect("put");

    let at = |secs| {
        store
            .clone()
            .with_clock(Clock::ahead_by(Duration::from_secs(secs)))
            .get::<Value>("k")
    };
    assert!(matches!(at(590), Lookup::Hit { .. }));
    assert_eq!(at(601), Lookup::Miss(MissReason::Expired));
    let until = SystemTime::now() + Duration::from_secs(5);
    store.put_until("k", &value(), until).expect("put_until");
    assert!(matches!(at(0), Lookup::Hit { .. }));
    assert_eq!(at(6), Lookup::Miss(MissReason::Expired));
}

#[test]
fn symlinked_and_foreign_entries_are_misses() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path().join("sky"))
        .expect("open")
        .store("identity", 1)
        .expect("store");
    store
        .put("real", &value(), Duration::from_secs(600))
        .expect("put");
    let real = store.entry_path("real").expect("path");
    let target = tmp.path().join("target.json");
    fs::copy(&real, &target).expect("copy");
    let link = store.entry_path("link").expect("path");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");

    assert_eq!(
        store.get::<Value>("link"),
        Lookup::Miss(MissReason::NotAFile)
    );
    store
        .put(
            "link",
            &Value {
                user: "new".into(),
                n: 1,
            },
            Duration::from_secs(600),
        )
        .expect("put");
    assert!(matches!(store.get::<Value>("link"), Lookup::Hit { .. }));
    assert_eq!(
        fs::read(&target).expect("read"),
        fs::read(&real).expect("read"),
        "the link target is untouched"
    );

    if is_root() {
        std::os::unix::fs::chown(&real, Some(65534), Some(65534)).expect("chown");
        assert_eq!(
            store.get::<Value>("real"),
            Lookup::Miss(MissReason::ForeignOwner)
        );
        store
            .put("real", &value(), Duration::from_secs(600))
            .expect("put over a foreign file");
        assert!(matches!(store.get::<Value>("real"), Lookup::Hit { .. }));
    }
}

#[test]
fn remove_deletes_and_tolerates_absence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    store
        .put("k", &value(), Duration::from_secs(600))
        .expect("put");

    store.remove("k").expect("remove");
    store.remove("k").expect("remove again");

    assert_eq!(store.get::<Value>("k"), Lookup::Miss(MissReason::Absent));
    assert!(store.keys().expect("keys").is_empty());
}

#[test]
fn names_that_could_escape_the_folder_are_rejected() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = StateDir::open(tmp.path()).expect("open");
    let store = dir.store("identity", 1).expect("store");
    let long = "a".repeat(129);

    for bad in ["", "../x", "a/b", ".hidden", "k.json", long.as_str()] {
        assert!(
            matches!(
                store.put(bad, &value(), Duration::from_secs(1)),
                Err(StateError::InvalidName { .. })
            ),
            "{bad:?}"
        );
        assert_eq!(
            store.get::<Value>(bad),
            Lookup::Miss(MissReason::Unreadable),
            "{bad:?}"
        );
        assert!(store.try_lock(bad).is_err(), "{bad:?}");
    }
    assert!(matches!(
        dir.store("../up", 1),
        Err(StateError::InvalidName { .. })
    ));
}

#[test]
fn locks_are_exclusive_and_waits_are_bounded() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");

    let held = store.try_lock("k").expect("try_lock").expect("free lock");
    assert!(
        store.try_lock("k").expect("try_lock").is_none(),
        "a second holder is refused"
    );
    assert!(
        store.try_lock("other").expect("try_lock").is_some(),
        "locks are per key"
    );

    let start = Instant::now();
    let err = store
        .lock_blocking("k", Duration::from_millis(50))
        .expect_err("must time out");
    let waited = start.elapsed();
    assert!(matches!(err, StateError::LockTimeout { .. }), "{err:?}");
    assert!(
        (Duration::from_millis(50)..Duration::from_secs(2)).contains(&waited),
        "{waited:?}"
    );
    assert_eq!(mode(held.path()), 0o600);

    drop(held);
    assert!(
        store.lock_blocking("k", Duration::ZERO).is_ok(),
        "released on drop"
    );
}

#[tokio::test]
async fn async_lock_waits_for_the_holder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    let held = store.try_lock("k").expect("try_lock").expect("free");

    let err = store
        .lock("k", Duration::from_millis(30))
        .await
        .expect_err("held elsewhere");
    assert!(matches!(err, StateError::LockTimeout { .. }));

    let waiter = {
        let store = store.clone();
        tokio::spawn(async move { store.lock("k", Duration::from_secs(10)).await.map(|_| ()) })
    };
    drop(held);
    waiter.await.expect("join").expect("acquired after release");
}

/// Env flag that turns [`umask_child`] from a no-op into the worker.
const UMASK_CHILD: &str = "SKY_IT_STATE_UMASK_CHILD";

#[test]
fn modes_are_private_even_under_umask_000() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sky");

    let child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "state::umask_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(UMASK_CHILD, &root)
        .output()
        .expect("spawn child");

    assert!(
        child.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&child.stdout)
    );
    assert_eq!(
        mode(&tmp.path().join("control")),
        0o666,
        "the child really ran under umask 000"
    );
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("identity")), 0o700);
    assert_eq!(mode(&root.join("cache.key")), 0o600);
    assert_eq!(mode(&root.join("identity/k.json")), 0o600);
    assert_eq!(mode(&root.join("identity/k.lock")), 0o600);
}

/// Runs only when re-invoked by [`modes_are_private_even_under_umask_000`].
#[test]
fn umask_child() {
    let Some(root) = std::env::var_os(UMASK_CHILD) else {
        return;
    };
    let root = Path::new(&root);
    rustix::process::umask(rustix::fs::Mode::empty());
    let control = root.parent().expect("parent").join("control");
    fs::File::create(&control).expect("control file");

    let dir = StateDir::open(root).expect("open");
    dir.hasher().expect("hasher");
    let store = dir.store("identity", 1).expect("store");
    store
        .put("k", &value(), Duration::from_secs(60))
        .expect("put");
    store.try_lock("k").expect("lock").expect("free");
}

/// Scale of the loops below: 1 in CI; `just stress` sets `SKY_STRESS=1`
/// for the issue's counts (100 kills, 16 processes × 200 writes).
fn stress() -> bool {
    std::env::var_os("SKY_STRESS").is_some_and(|v| !v.is_empty())
}

fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn group_or_world_writable_entries_are_misses_and_rewritten_private() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    let path = store.entry_path("k").expect("path");
    for loose in [0o620, 0o602, 0o660, 0o666, 0o644, 0o640, 0o700] {
        store
            .put("k", &value(), Duration::from_secs(600))
            .expect("put");
        fs::set_permissions(&path, fs::Permissions::from_mode(loose)).expect("chmod");
        assert_eq!(
            store.get::<Value>("k"),
            Lookup::Miss(MissReason::OpenPermissions),
            "mode {loose:o}"
        );
        assert_eq!(mode(&path), loose, "a read never changes the file");
        store
            .put("k", &value(), Duration::from_secs(600))
            .expect("rewrite");
        assert_eq!(mode(&path), 0o600, "rewritten private after {loose:o}");
        assert!(matches!(store.get::<Value>("k"), Lookup::Hit { .. }));
    }
}

#[test]
fn forged_or_transplanted_entries_fail_authentication_and_are_rewritten() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = StateDir::open(tmp.path()).expect("open");
    let store = dir.store("identity", 1).expect("store");
    store
        .put("k", &value(), Duration::from_secs(600))
        .expect("put");
    let path = store.entry_path("k").expect("path");
    let valid = fs::read_to_string(&path).expect("read");
    assert!(valid.contains(r#","mac":""#), "{valid}");
    let without_mac = {
        let at = valid.find(r#","mac":""#).expect("mac");
        format!("{}}}", &valid[..at])
    };
    let other_key = {
        let other = StateDir::open(tmp.path().join("other"))
            .expect("open")
            .store("identity", 1)
            .expect("store");
        other
            .put("k", &value(), Duration::from_secs(600))
            .expect("put");
        fs::read_to_string(other.entry_path("k").expect("path")).expect("read")
    };
    let cases: Vec<(&str, String)> = vec![
        // The attack of the issue: another account, same shape.
        (
            "forged account",
            valid.replace("AIDAEXAMPLE", "AIDAATTACKER"),
        ),
        ("forged count", valid.replace(r#""n":7"#, r#""n":8"#)),
        ("no mac", without_mac),
        (
            "mac of zeros",
            format!(
                "{}{}\"}}",
                &valid[..valid.find(r#","mac":""#).expect("mac") + 8],
                "0".repeat(64)
            ),
        ),
        ("signed under another user's key", other_key),
    ];
    for (name, text) in cases {
        fs::write(&path, &text).expect("write");
        assert_eq!(
            store.get::<Value>("k"),
            Lookup::Miss(MissReason::Unauthenticated),
            "{name}: {text}"
        );
        store
            .put("k", &value(), Duration::from_secs(600))
            .expect("put");
        match store.get::<Value>("k") {
            Lookup::Hit { value: v, .. } => assert_eq!(v, value(), "{name} healed"),
            other => panic!("{name}: not healed: {other:?}"),
        }
    }
    // An entry copied under another key of the same store does not verify.
    let copy = store.entry_path("k2").expect("path");
    fs::copy(&path, &copy).expect("copy");
    assert_eq!(
        store.get::<Value>("k2"),
        Lookup::Miss(MissReason::Unauthenticated)
    );
}

#[test]
fn leftovers_of_dead_writers_are_swept_and_live_ones_kept() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = StateDir::open(tmp.path())
        .expect("open")
        .store("identity", 1)
        .expect("store");
    // A pid that cannot be running (beyond the kernel's pid_max), one
    // that is (ours), and an old name without a pid.
    let dead = store.dir().join(".k.json.99999999.0123456789abcdef.tmp");
    let live = store.dir().join(format!(
        ".k.json.{}.0123456789abcdef.tmp",
        std::process::id()
    ));
    let legacy = store.dir().join(".k.json.0123456789abcdef.tmp");
    for p in [&dead, &live, &legacy] {
        fs::write(p, b"{\"half").expect("write");
    }
    let root_dead = tmp.path().join(".cache.key.99999999.0123456789abcdef.tmp");
    fs::write(&root_dead, b"x").expect("write");

    let reopened = StateDir::open(tmp.path())
        .expect("reopen")
        .store("identity", 1)
        .expect("store");

    let mut left = temp_files(reopened.dir());
    left.sort();
    let mut want = vec![
        legacy.file_name().unwrap().to_string_lossy().into_owned(),
        live.file_name().unwrap().to_string_lossy().into_owned(),
    ];
    want.sort();
    assert_eq!(left, want, "the dead writer's file is gone, the rest kept");
    assert!(!root_dead.exists(), "swept in the state folder itself too");
}

#[test]
fn an_interrupted_process_abandons_its_unpublished_writes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sky");
    // In a child: the registry of pending writes is process-wide.
    let child = Command::new(std::env::current_exe().expect("test binary"))
        .args(["state::abandon_child", "--exact", "--nocapture", "-q"])
        .env(ABANDON_CHILD, &root)
        .output()
        .expect("spawn child");
    assert!(
        child.status.success(),
        "child failed: {}{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(temp_files(&root.join("identity")).is_empty());
}

const ABANDON_CHILD: &str = "SKY_IT_STATE_ABANDON_CHILD";

/// Runs only when re-invoked by [`an_interrupted_process_abandons_its_unpublished_writes`].
#[test]
fn abandon_child() {
    let Some(root) = std::env::var_os(ABANDON_CHILD) else {
        return;
    };
    let store = StateDir::open(Path::new(&root))
        .expect("open")
        .store("identity", 1)
        .expect("store");
    store
        .put("k", &value(), Duration::from_secs(60))
        .expect("put");
    assert_eq!(optimizer::state::abandon_pending_writes(), 0);
    let err = store
        .put("k", &value(), Duration::from_secs(60))
        .expect_err("no write after the interrupt");
    assert!(err.to_string().contains("interrupted"), "{err}");
    assert!(
        matches!(store.get::<Value>("k"), Lookup::Hit { .. }),
        "the published entry is complete"
    );
}

const WRITER_CHILD: &str = "SKY_IT_STATE_WRITER_CHILD";

/// Runs only when re-invoked: writes `SKY_IT_STATE_WRITES` entries to one
/// key (forever when 0), reading each back.
#[test]
fn writer_child() {
    let Some(root) = std::env::var_os(WRITER_CHILD) else {
        return;
    };
    let writes: u64 = std::env::var("SKY_IT_STATE_WRITES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let store = StateDir::open(Path::new(&root))
        .expect("open")
        .store("identity", 1)
        .expect("store");
    let mut corrupt = 0u64;
    let mut i = 0u64;
    while writes == 0 || i < writes {
        let v = Value {
            user: format!("writer-{}-{i}", std::process::id()),
            n: i as u32,
        };
        store.put("k", &v, Duration::from_secs(60)).expect("put");
        match store.get::<Value>("k") {
            Lookup::Hit { .. } => {}
            other => {
                corrupt += 1;
                eprintln!("corrupt read: {other:?}");
            }
        }
        i += 1;
    }
    assert_eq!(corrupt, 0, "corrupt reads");
}

fn spawn_writer(root: &Path, writes: u64) -> std::process::Child {
    Command::new(std::env::current_exe().expect("test binary"))
        .args(["state::writer_child", "--exact", "--nocapture", "-q"])
        .env(WRITER_CHILD, root)
        .env("SKY_IT_STATE_WRITES", writes.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn writer")
}

#[test]
fn a_writer_killed_mid_write_is_healed_by_the_next_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sky");
    let kills = if stress() { 100 } else { 5 };
    let mut rng = 0x9e37_79b9_7f4a_7c15u64; // seeded: the same delays every run
    let mut leftovers_seen = 0;
    for round in 0..kills {
        let mut child = spawn_writer(&root, 0);
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(Duration::from_millis(5 + rng % 40));
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");
        let identity = root.join("identity");
        if identity.exists() {
            leftovers_seen += temp_files(&identity).len();
        }
        // The next run: opening sweeps the dead writer's files, and the entry
        // is whole (a hit), or absent if the writer never published one.
        let store = StateDir::open(&root)
            .expect("open")
            .store("identity", 1)
            .expect("store");
        assert!(
            temp_files(store.dir()).is_empty(),
            "round {round}: leftovers after the next open"
        );
        match store.get::<Value>("k") {
            Lookup::Hit { .. } | Lookup::Miss(MissReason::Absent) => {}
            other => panic!("round {round}: {other:?}"),
        }
    }
    eprintln!("{kills} kills, {leftovers_seen} temporary files left by them, all swept");
}

#[test]
fn concurrent_writers_to_one_key_never_tear_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sky");
    StateDir::open(&root).expect("open").hasher().expect("key");
    let (procs, writes) = if stress() { (16, 200) } else { (4, 25) };
    let children: Vec<_> = (0..procs).map(|_| spawn_writer(&root, writes)).collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "a writer saw a corrupt read: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(temp_files(&root.join("identity")).is_empty(), "leftovers");
    eprintln!("{procs} processes × {writes} writes: 0 corrupt reads, 0 leftovers");
}

#[test]
fn a_store_says_whether_its_folder_held_anything_from_its_own_listing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let open = || {
        StateDir::open(tmp.path())
            .expect("open")
            .store("identity", 1)
            .expect("store")
    };
    let store = open();
    assert!(
        !store.held_entries_when_opened(),
        "a new folder holds nothing"
    );
    // A dead writer's leftover is swept by the opening: still nothing.
    let dead = store.dir().join(".k.json.99999999.0123456789abcdef.tmp");
    fs::write(&dead, b"{\"half").expect("write");
    assert!(!open().held_entries_when_opened());
    assert!(!dead.exists());
    store
        .put("k", &value(), Duration::from_secs(600))
        .expect("put");
    assert!(open().held_entries_when_opened(), "an entry was written");
}
