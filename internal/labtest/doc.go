// Package labtest tests warplab's images the way students meet them: in
// JupyterLab, alone or behind a JupyterHub.
//
// No Docker engine runs on the development machine or in CI, and no image
// registry is reachable, so the images are built with buildah from the
// repository's own Dockerfiles (scripts/lab/build.sh: a Debian trixie base
// made by mmdebstrap, then `buildah bud --isolation chroot`), and each test
// runs the image's programs in a fresh working container of it with chroot
// (Root). Chromium runs on the host and reaches the image's JupyterLab over
// loopback, driven through the DevTools protocol with chromedp — the same
// driver the notebook page tests use (internal/browser).
//
// The tests, each switched on by an environment variable because they build
// images and take minutes:
//
//   - TestLabNotebook (WARPLAB_LAB_TESTS=1): JupyterLab in the simulator
//     image opens a lesson notebook on the GoNB kernel, runs all cells, waits
//     for the kernel to go idle, saves, and the saved notebook passes
//     nbtest.Check (no error output, every plot cell has its figure, every
//     number the lesson promises); on the page, every figure is laid out with
//     a size and no error shows. A screenshot is kept in artifacts/lab/.
//   - TestAccess (WARPLAB_LAB_TESTS=1): without credentials, or with another
//     student's token, no kernel is started and no file is read — on the bare
//     image's JupyterLab, on the hub, and on a student's server reached past
//     the hub's proxy.
//   - TestLabOffline (WARPLAB_LAB_TESTS=1): the simulator image with no
//     network (Root.Offline: a namespace that drops whatever leaves
//     loopback, as a firewall does, with a name server that never answers):
//     the image's start works, `go list -m -json all` with the kernel's
//     environment reads the module cache only, and each trivial GoNB cell
//     takes under trivialCellLimit, not a network timeout.
//   - TestLabSpmv (WARPLAB_LAB_TESTS=1): the image carries the SuiteSparse
//     matrices, and its spmv notebook, run offline as a hub student's copy
//     in their own folder, meets every promise (nbtest.Check).
//   - TestNoRegistryHost, TestAptMirror (always): no file of the checkout
//     names a package registry's, mirror's or proxy's host, and
//     scripts/apt-mirror.sh finds the machine's Debian mirror in apt's
//     sources (or WARPLAB_APT_MIRROR) for the scripts and images.
//   - TestClassroomLoad (WARPLAB_LOADTEST=1, run by hand, not in CI):
//     4, 8 and 16 students start their servers through the hub's REST API
//     and run the SpMV lesson at once (Kernel), each run bounded by 15
//     minutes; see scripts/lab/loadtest.sh.
//   - TestClassroomConfig (always): the Zero to JupyterHub configuration in
//     docs/classroom.md parses as YAML and holds the measured numbers.
package labtest
