package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.roaringbitmap.RoaringBitmap;

/**
 * The updater's side of a selector: stable slot ids per address, the inverted index {@code
 * key=value -> slot set}, and the build of each {@link SubsetState}. Not thread-safe: the
 * selector serialises updates; picks only read published states.
 *
 * <p><b>Slots.</b> Every address keeps the slot id it got when it appeared, until it is removed;
 * freed ids are reused by later updates. So an update that changes a few endpoints changes a few
 * members, and the member sets of untouched subsets stay valid.
 *
 * <p><b>Slot sets.</b> The index and every subset keep their slots in a {@link SlotSet}: sorted
 * ints when sparse, else a bitset sized to the slots in use (1000 bytes at 8000 endpoints), never
 * modified once published. The index's sets answer intersections for label sets that are no
 * selector through their RoaringBitmap views ({@link SlotSet#roaring}, made on first use; {@link
 * #intersect}). A Roaring bitmap's dense form always spans 65536 slots (8 KiB), and its array
 * form needs a search per changed slot, so patching the sets themselves is cheaper.
 *
 * <p><b>Full build</b> (the first update, or one that changes many endpoints): one pass over the
 * slots fills the index; then each selector's subsets come from its keys in a fixed global order
 * (fewest distinct values first), expanding each key prefix's subsets by the next key: {@code
 * prefix AND (key=value)} for every value of that key, keeping only non-empty results. Prefixes
 * are shared between selectors ({zone} is computed once for {zone}, {zone, version}, ...); a
 * prefix holding every endpoint yields the value sets themselves, and a value covering the
 * whole prefix yields the prefix, so constant labels cost nothing. The intersections of one
 * prefix with all values of a key are computed together in one pass over the prefix's members
 * (in {@link FullBuild}).
 *
 * <p><b>Incremental update</b> (few endpoints added, removed, relabelled or reweighted): the
 * index sets of the changed {@code key=value} pairs are patched ({@link SlotSet#patch}); for
 * each selector, only the subsets that a changed endpoint leaves, joins, or belongs to with a
 * new weight get a new member set. That set is not copied from the old one: its size and
 * content hash follow from the changed endpoints, and its members are the AND of the subset's
 * values' patched index sets ({@link Subset#pending}), computed when the subset is first
 * read (its first pick makes its child balancer then anyway). Everything else, including the
 * already made child balancers, is shared with the previous state. The updater keeps each
 * selector's subsets by value ids ({@link ComboMap}) and the shared subsets with their use
 * counts ({@link Canon}) across patches, so a patch never walks untouched subsets; the patch
 * itself is {@link Patch}. (Copying and patching the touched subsets' sets would cost nearly
 * as much as the full build when, as with 3 values per key, 50 changed endpoints touch nearly
 * every subset.)
 *
 * <p><b>Delta</b> ({@link #apply}): the changed slots come from the delta itself, by address,
 * with no pass over the other endpoints; then the same incremental patch (or, above the
 * threshold, the full build). A full-list {@link #update} already skips most of its pass for a
 * list pushed again: an entry at the same position with the same address takes its slot without
 * hashing, and an identical endpoint object is not compared.
 *
 * <p>Subsets with equal member sets share one {@link Subset} (one child balancer), through
 * {@link Canon}. The index-independent parts of the patch (ops, op lists) are in {@link
 * PatchOps}.
 *
 * @param <T> the thing being balanced
 */
public final class SubsetIndex<T> {

  // Package-private fields are read by FullBuild, on the updater's thread.
  final Supplier<? extends Balancer<T>> factory;
  private final Balancer<T> prototype;
  final String[][] selectors;
  private final Set<String> selectorKeys;
  final String[] defaultKeys;
  final String[] defaultValues;
  final String[] indexKeys;
  // per selector: its keys as a set of index keys (PatchOps.keyBits)
  final long[][] selectorKeyBits;
  // per selector: the index key position of each of its keys, in the selector's (sorted) order
  final int[][] selectorKeyPos;
  private final double rebuildThreshold;
  private final int cacheSize;
  private final BiFunction<String[], String[], RequestLabels> labelsFactory;

  private static final int ADDED = -1;
  private static final int UNCHANGED = -2;

  private final SlotMap slotByAddress = new SlotMap();
  // The previous update's list and slots by position, to skip hashing an unchanged push.
  // Two buffers each, alternating, so that a push of thousands allocates no list copies.
  private Endpoint[] lastOrder = new Endpoint[0];
  private int[] lastSlots = new int[0];
  private int lastCount;
  private Endpoint[] spareOrder = new Endpoint[0];
  private int[] spareSlots = new int[0];
  // Per index key: value -> id, id -> value, and each slot's value id (-1: no such label).
  private final List<SlotMap> valueIds = new ArrayList<>();
  final List<List<String>> valueNames = new ArrayList<>();
  // the same value -> id maps for threads that resolve request labels: written by the updater
  // when a value first appears (before any state that has it is published), read by any thread.
  // The updater keeps its SlotMaps for its own lookups: faster, no boxing, but not thread-safe.
  private final List<ConcurrentHashMap<String, Integer>> sharedValueIds = new ArrayList<>();
  int[][] idsBySlot;
  final Map<String, Integer> indexKeyPosition = new HashMap<>();
  Endpoint[] endpoints = new Endpoint[16];
  private int[] seen = new int[16];
  private int epoch;
  int highWater;
  private int[] free = new int[16];
  private int freeCount;
  private final FullBuild<T> fullBuild = new FullBuild<>(this);
  private long totalWeight;
  private long fullBuilds;
  private long incrementalUpdates;
  private SubsetState<T> state;
  private int[] slotScratch = new int[16];
  private final PatchScratch patchScratch;
  // the base of incremental updates: each selector's subsets by value ids, the shared subsets
  final ComboMap<T>[] combos;
  Canon<T> canon;
  private int patchEpoch;

  /**
   * Creates an empty index.
   *
   * @param factory makes the child balancers, all of one algorithm
   * @param selectors each selector's keys, non-empty and distinct
   * @param defaultLabels the default subset's labels, or {@code null} for none
   * @param rebuildThreshold the fraction of changed endpoints above which an update rebuilds all
   * @param cacheSize the bound of each state's cache of resolved label sets
   * @param labelsFactory makes subset labels from sorted keys and values, without copying
   */
  public SubsetIndex(Supplier<? extends Balancer<T>> factory, List<List<String>> selectors,
      RequestLabels defaultLabels, double rebuildThreshold, int cacheSize,
      BiFunction<String[], String[], RequestLabels> labelsFactory) {
    this.factory = factory;
    this.prototype = Objects.requireNonNull(factory.get(), "balancer factory returned null");
    this.selectors = new String[selectors.size()][];
    // sorted as an endpoint's labels are, so that one walk over them finds every index key
    Set<String> keys = new TreeSet<>();
    for (int i = 0; i < selectors.size(); i++) {
      String[] s = new TreeSet<>(selectors.get(i)).toArray(new String[0]);
      this.selectors[i] = s;
      keys.addAll(Arrays.asList(s));
    }
    this.selectorKeys = Set.copyOf(keys);
    if (defaultLabels != null) {
      defaultKeys = new String[defaultLabels.size()];
      defaultValues = new String[defaultLabels.size()];
      for (int i = 0; i < defaultKeys.length; i++) {
        defaultKeys[i] = defaultLabels.key(i);
        defaultValues[i] = defaultLabels.value(i);
        keys.add(defaultKeys[i]);
      }
    } else {
      defaultKeys = null;
      defaultValues = null;
    }
    this.indexKeys = keys.toArray(new String[0]);
    this.patchScratch = new PatchScratch(indexKeys.length);
    for (int k = 0; k < indexKeys.length; k++) {
      indexKeyPosition.put(indexKeys[k], k);
    }
    this.idsBySlot = new int[indexKeys.length][16];
    for (int k = 0; k < indexKeys.length; k++) {
      valueIds.add(new SlotMap());
      valueNames.add(new ArrayList<>());
      sharedValueIds.add(new ConcurrentHashMap<>());
    }
    this.selectorKeyBits = new long[this.selectors.length][];
    this.selectorKeyPos = new int[this.selectors.length][];
    for (int i = 0; i < this.selectors.length; i++) {
      selectorKeyPos[i] = new int[this.selectors[i].length];
      for (int j = 0; j < this.selectors[i].length; j++) {
        selectorKeyPos[i][j] = Arrays.asList(indexKeys).indexOf(this.selectors[i][j]);
      }
    }
    for (int i = 0; i < this.selectors.length; i++) {
      selectorKeyBits[i] = PatchOps.keyBits(indexKeys.length);
      for (int k : selectorKeyPos[i]) {
        PatchOps.addKey(selectorKeyBits[i], k);
      }
    }
    this.combos = newComboMaps();
    this.canon = new Canon<>(factory);
    this.rebuildThreshold = rebuildThreshold;
    this.cacheSize = cacheSize;
    this.labelsFactory = labelsFactory;
    this.state = emptyState();
  }

  @SuppressWarnings("unchecked")
  private ComboMap<T>[] newComboMaps() {
    ComboMap<T>[] maps = new ComboMap[selectors.length];
    for (int i = 0; i < maps.length; i++) {
      maps[i] = new ComboMap<>(selectorKeyPos[i]);
    }
    return maps;
  }

  /** Returns the current state. */
  public SubsetState<T> state() {
    return state;
  }

  /** Returns the prototype balancer (for its name). */
  public Balancer<T> prototype() {
    return prototype;
  }

  /** Returns how many updates rebuilt every subset. */
  public long fullBuilds() {
    return fullBuilds;
  }

  /** Returns how many updates rebuilt only the affected subsets. */
  public long incrementalUpdates() {
    return incrementalUpdates;
  }

  /** Returns the patch's working lists, empty (see {@link PatchScratch}). */
  PatchScratch patchScratch() {
    return patchScratch;
  }

  /** Returns a buffer of at least {@link #highWater} ints (contents undefined). */
  int[] slotScratch() {
    if (slotScratch.length < highWater) {
      slotScratch = new int[Math.max(highWater, slotScratch.length * 2)];
    }
    return slotScratch;
  }

  int cacheSize() {
    return cacheSize;
  }

  boolean isSelectorKey(String key) {
    return selectorKeys.contains(key);
  }

  RequestLabels labels(String[] sortedKeys, String[] values) {
    return labelsFactory.apply(sortedKeys, values);
  }

  Subset<T> newSubset(SlotSet members, Node<T>[] bySlot) {
    return new Subset<>(members, bySlot, factory);
  }

  @SuppressWarnings("unchecked")
  private SubsetState<T> emptyState() {
    SelectorTable<T>[] tables = new SelectorTable[selectors.length];
    for (int i = 0; i < selectors.length; i++) {
      tables[i] = SelectorTable.empty(selectors[i]);
    }
    return new SubsetState<>(this, List.of(), new Node[0],
        new SlotSet[indexKeys.length][0], SlotSet.EMPTY, tables, null, null);
  }

  /**
   * Applies a new endpoint set and publishes nothing: the caller reads {@link #state()} after.
   * Validates everything before changing anything.
   *
   * @return the removed nodes
   */
  @SuppressWarnings("unchecked")
  public List<Node<T>> update(Collection<Endpoint> endpointSet,
      Function<? super Endpoint, ? extends T> values) {
    int n = endpointSet.size();
    if (spareOrder.length < n) {
      spareOrder = new Endpoint[n];
      spareSlots = new int[n];
    }
    Endpoint[] es = endpointSet.toArray(spareOrder);
    if (es != spareOrder) {
      // the collection grew meanwhile: use the copy it made
      n = es.length;
      spareSlots = new int[n];
    }
    int e = ++epoch;
    int[] slotOf = spareSlots;
    // a first update adds every endpoint: size for them at once rather than by doubling
    slotByAddress.ensureCapacity(n);
    int[] addedIdx = new int[lastCount == 0 ? Math.max(8, n) : 8];
    int nAdded = 0;
    int[] changedIdx = new int[8];
    int nChanged = 0;
    long sum = 0;
    Node<T>[] addedNodes;
    try {
      Endpoint[] lastEs = lastOrder;
      int[] lastSl = lastSlots;
      int lastLen = Math.min(lastCount, n);
      for (int i = 0; i < n; i++) {
        Endpoint ep = Objects.requireNonNull(es[i], "endpoint");
        sum += ep.weight();
        int slot;
        Endpoint guess = i < lastLen ? lastEs[i] : null;
        if (guess != null && (guess == ep || guess.address().equals(ep.address()))) {
          // registries tend to push the same list again: same position, same address
          slot = lastSl[i];
        } else {
          // a new address gets a pending mark (negative), so that a second one is caught
          slot = slotByAddress.putIfAbsent(ep.address(), -1 - nAdded);
        }
        if (slot == SlotMap.ABSENT) {
          slotOf[i] = -1;
          if (nAdded == addedIdx.length) {
            addedIdx = Arrays.copyOf(addedIdx, nAdded * 2);
          }
          addedIdx[nAdded++] = i;
        } else {
          if (slot < 0 || seen[slot] == e) {
            throw new IllegalArgumentException("address: " + ep.address() + " given twice");
          }
          seen[slot] = e;
          slotOf[i] = slot;
          Endpoint old = endpoints[slot];
          if (old != ep && !old.equals(ep)) {
            if (nChanged == changedIdx.length) {
              changedIdx = Arrays.copyOf(changedIdx, nChanged * 2);
            }
            changedIdx[nChanged++] = i;
          }
        }
      }
      if (sum > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "weights: sum " + sum + " (expected: <= " + Integer.MAX_VALUE + ")");
      }
      // Values only after the whole set is valid; a throwing factory leaves all untouched.
      addedNodes = new Node[nAdded];
      for (int j = 0; j < nAdded; j++) {
        Endpoint ep = es[addedIdx[j]];
        addedNodes[j] = prototype.newNode(ep, values.apply(ep));
      }
    } catch (RuntimeException | Error ex) {
      for (int j = 0; j < nAdded; j++) {
        slotByAddress.remove(es[addedIdx[j]].address());
      }
      throw ex;
    }

    SubsetState<T> prev = state;
    int oldLive = prev.live.size();
    int nRemoved = oldLive - (n - nAdded);
    int nDirty = nAdded + nRemoved + nChanged;

    // Dirty slots: old and new endpoint (null when added or removed).
    int[] dSlot = new int[nDirty];
    Endpoint[] dOld = new Endpoint[nDirty];
    Endpoint[] dNew = new Endpoint[nDirty];
    boolean[] dWeight = new boolean[nDirty];
    int d = 0;
    List<Node<T>> removed = new ArrayList<>(nRemoved);
    if (nRemoved > 0) {
      for (int slot = 0; slot < highWater; slot++) {
        if (endpoints[slot] != null && seen[slot] != e) {
          dSlot[d] = slot;
          dOld[d] = endpoints[slot];
          removed.add(prev.bySlot[slot]);
          d++;
        }
      }
    }
    for (int j = 0; j < nChanged; j++) {
      int slot = slotOf[changedIdx[j]];
      Endpoint ep = es[changedIdx[j]];
      dSlot[d] = slot;
      dOld[d] = endpoints[slot];
      dNew[d] = ep;
      dWeight[d] = dOld[d].weight() != ep.weight();
      d++;
    }
    for (int j = 0; j < nAdded; j++) {
      dNew[d++] = es[addedIdx[j]];
    }
    int[][] ids = new int[2][];
    Node<T>[] bySlot = writeDirty(prev, nRemoved, nChanged, dSlot, dOld, dNew, addedNodes, ids);
    for (int j = 0; j < nAdded; j++) {
      slotOf[addedIdx[j]] = dSlot[nRemoved + nChanged + j];
    }

    List<Node<T>> nodes;
    if (nAdded == 0 && nRemoved == 0 && n == lastCount
        && Arrays.equals(slotOf, 0, n, lastSlots, 0, n)) {
      nodes = prev.nodes; // same nodes in the same order
    } else {
      Node<T>[] ordered = new Node[n];
      for (int i = 0; i < n; i++) {
        ordered[i] = bySlot[slotOf[i]];
      }
      nodes = Collections.unmodifiableList(Arrays.asList(ordered));
    }
    keepOrder(es, slotOf, n);
    totalWeight = sum;
    publish(prev, nodes, bySlot, dSlot, dOld, dNew, ids[0], ids[1], dWeight,
        nAdded + nRemoved > 0);
    return removed;
  }

  /**
   * Applies a delta and publishes nothing: the caller reads {@link #state()} after. Upserts add
   * new addresses (appended to the node order) or replace the endpoint of known ones (in place);
   * removed addresses that are not known are ignored. Costs the size of the delta and of the
   * subsets it touches, not the number of endpoints (except that adding or removing rebuilds
   * the node list, one array copy). Validates everything before changing anything.
   *
   * @return the removed nodes
   */
  @SuppressWarnings("unchecked")
  public List<Node<T>> apply(Collection<Endpoint> upserts, Collection<String> removedAddresses,
      Function<? super Endpoint, ? extends T> values) {
    Endpoint[] ups = upserts.toArray(new Endpoint[0]);
    String[] rms = removedAddresses.toArray(new String[0]);
    int e = ++epoch;
    // per upsert: its slot, ADDED for a new address, UNCHANGED for an equal endpoint
    int[] upSlot = new int[ups.length];
    int[] rmSlot = new int[rms.length];
    String[] pending = new String[ups.length + rms.length];
    int nPending = 0;
    int nAdded = 0;
    int nChanged = 0;
    int nRemoved = 0;
    long sum = totalWeight;
    Node<T>[] addedNodes;
    try {
      for (int i = 0; i < ups.length; i++) {
        Endpoint ep = Objects.requireNonNull(ups[i], "upserted endpoint");
        int slot = slotByAddress.get(ep.address());
        if (slot == SlotMap.ABSENT) {
          // a new address: marked pending (negative) so that a second one is caught
          slotByAddress.put(ep.address(), -1);
          pending[nPending++] = ep.address();
          upSlot[i] = ADDED;
          nAdded++;
          sum += ep.weight();
          continue;
        }
        if (slot < 0 || seen[slot] == e) {
          throw new IllegalArgumentException("address: " + ep.address() + " given twice");
        }
        seen[slot] = e;
        Endpoint old = endpoints[slot];
        if (old == ep || old.equals(ep)) {
          upSlot[i] = UNCHANGED;
        } else {
          upSlot[i] = slot;
          nChanged++;
          sum += ep.weight() - (long) old.weight();
        }
      }
      for (int i = 0; i < rms.length; i++) {
        String a = Objects.requireNonNull(rms[i], "removed address");
        int slot = slotByAddress.get(a);
        if (slot == SlotMap.ABSENT) {
          // not known: nothing to remove, but a repeat is still caught
          slotByAddress.put(a, -1);
          pending[nPending++] = a;
          rmSlot[i] = UNCHANGED;
          continue;
        }
        if (slot < 0 || seen[slot] == e) {
          throw new IllegalArgumentException("address: " + a + " given twice");
        }
        seen[slot] = e;
        rmSlot[i] = slot;
        nRemoved++;
        sum -= endpoints[slot].weight();
      }
      if (sum > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "weights: sum " + sum + " (expected: <= " + Integer.MAX_VALUE + ")");
      }
      // Values only after the whole delta is valid; a throwing factory leaves all untouched.
      addedNodes = new Node[nAdded];
      for (int i = 0, j = 0; i < ups.length; i++) {
        if (upSlot[i] == ADDED) {
          addedNodes[j++] = prototype.newNode(ups[i], values.apply(ups[i]));
        }
      }
    } finally {
      for (int j = 0; j < nPending; j++) {
        slotByAddress.remove(pending[j]);
      }
    }
    int nDirty = nRemoved + nChanged + nAdded;
    if (nDirty == 0) {
      return List.of();
    }
    SubsetState<T> prev = state;
    int[] dSlot = new int[nDirty];
    Endpoint[] dOld = new Endpoint[nDirty];
    Endpoint[] dNew = new Endpoint[nDirty];
    boolean[] dWeight = new boolean[nDirty];
    List<Node<T>> removed = new ArrayList<>(nRemoved);
    int d = 0;
    for (int slot : rmSlot) {
      if (slot >= 0) {
        dSlot[d] = slot;
        dOld[d++] = endpoints[slot];
        removed.add(prev.bySlot[slot]);
      }
    }
    for (int i = 0; i < ups.length; i++) {
      int slot = upSlot[i];
      if (slot >= 0) {
        dSlot[d] = slot;
        dOld[d] = endpoints[slot];
        dNew[d] = ups[i];
        dWeight[d] = dOld[d].weight() != ups[i].weight();
        d++;
      }
    }
    for (int i = 0; i < ups.length; i++) {
      if (upSlot[i] == ADDED) {
        dNew[d++] = ups[i];
      }
    }
    int[][] ids = new int[2][];
    Node<T>[] bySlot = writeDirty(prev, nRemoved, nChanged, dSlot, dOld, dNew, addedNodes, ids);

    List<Node<T>> nodes = prev.nodes;
    if (nAdded > 0 || nRemoved > 0) {
      // the previous order without the removed, then the added in delta order
      int n = lastCount - nRemoved + nAdded;
      Endpoint[] order = spareOrder.length >= n ? spareOrder : new Endpoint[n];
      int[] slots = spareSlots.length >= n ? spareSlots : new int[n];
      Node<T>[] ordered = new Node[n];
      int m = 0;
      for (int i = 0; i < lastCount; i++) {
        int slot = lastSlots[i];
        if (endpoints[slot] != null) {
          order[m] = endpoints[slot];
          slots[m] = slot;
          ordered[m++] = bySlot[slot];
        }
      }
      for (int j = nRemoved + nChanged; j < nDirty; j++) {
        order[m] = dNew[j];
        slots[m] = dSlot[j];
        ordered[m++] = bySlot[dSlot[j]];
      }
      nodes = Collections.unmodifiableList(Arrays.asList(ordered));
      keepOrder(order, slots, n);
    }
    totalWeight = sum;
    publish(prev, nodes, bySlot, dSlot, dOld, dNew, ids[0], ids[1], dWeight,
        nAdded + nRemoved > 0);
    return removed;
  }

  /** Keeps the order of this update's endpoints and their slots; the previous arrays are reused. */
  private void keepOrder(Endpoint[] order, int[] slots, int n) {
    spareOrder = lastOrder;
    spareSlots = lastSlots;
    lastOrder = order;
    lastSlots = slots;
    lastCount = n;
  }

  /**
   * Writes the dirty slots ({@link #writeSlots}) and, when the update will patch the previous
   * state ({@link #patches}), puts each dirty slot's value ids before and after in {@code
   * ids[0]} and {@code ids[1]} (left {@code null} for a full build, which reads none).
   */
  private Node<T>[] writeDirty(SubsetState<T> prev, int nRemoved, int nChanged, int[] dSlot,
      Endpoint[] dOld, Endpoint[] dNew, Node<T>[] addedNodes, int[][] ids) {
    if (patches(prev, dSlot.length, addedNodes.length)) {
      ids[0] = oldIds(dSlot, dOld);
      ids[1] = new int[ids[0].length];
    }
    return writeSlots(prev, nRemoved, nChanged, dSlot, dOld, dNew, ids[1], addedNodes);
  }

  /**
   * Writes the dirty slots into the updater's tables: the removed ones first in the arrays, then
   * the changed ones, then the added ones, whose slots this assigns (freed slots of earlier
   * updates first). Renews the changed nodes' endpoints ({@link Balancer#renew}). Returns the
   * new nodes by slot (the previous array when no slot is added or removed).
   */
  @SuppressWarnings("unchecked")
  private Node<T>[] writeSlots(SubsetState<T> prev, int nRemoved, int nChanged, int[] dSlot,
      Endpoint[] dOld, Endpoint[] dNew, int[] dNewIds, Node<T>[] addedNodes) {
    int nAdded = addedNodes.length;
    for (int j = nRemoved; j < nRemoved + nChanged; j++) {
      prototype.renew(prev.bySlot[dSlot[j]], dNew[j]);
    }
    // New addresses take freed slots from earlier updates, then fresh ones.
    int first = nRemoved + nChanged;
    for (int j = 0; j < nAdded; j++) {
      dSlot[first + j] = freeCount > 0 ? free[--freeCount] : highWater++;
    }
    if (highWater > endpoints.length) {
      int cap = Math.max(highWater, endpoints.length * 2);
      endpoints = Arrays.copyOf(endpoints, cap);
      seen = Arrays.copyOf(seen, cap);
      for (int k = 0; k < idsBySlot.length; k++) {
        idsBySlot[k] = Arrays.copyOf(idsBySlot[k], cap);
      }
    }
    Node<T>[] bySlot = prev.bySlot;
    if (nAdded > 0 || nRemoved > 0) {
      bySlot = Arrays.copyOf(prev.bySlot, highWater);
    }
    for (int j = 0; j < dSlot.length; j++) {
      int slot = dSlot[j];
      endpoints[slot] = dNew[j];
      if (dNew[j] == null) {
        bySlot[slot] = null;
        slotByAddress.remove(dOld[j].address());
      } else {
        if (dOld[j] == null) {
          slotByAddress.put(dNew[j].address(), slot);
        }
        writeIds(slot, dOld[j] != null, dNew[j], dNewIds, j * indexKeys.length);
      }
    }
    for (int j = 0; j < nAdded; j++) {
      bySlot[dSlot[first + j]] = addedNodes[j];
    }
    for (int j = 0; j < nRemoved; j++) {
      if (freeCount == free.length) {
        free = Arrays.copyOf(free, freeCount * 2);
      }
      free[freeCount++] = dSlot[j];
    }
    return bySlot;
  }

  /**
   * Returns each dirty slot's value ids per index key before the update writes the new ones,
   * row after row of {@code indexKeys.length} (zeros for an added slot).
   */
  private int[] oldIds(int[] dSlot, Endpoint[] dOld) {
    int nk = indexKeys.length;
    int[] out = new int[dSlot.length * nk];
    for (int j = 0; j < dSlot.length; j++) {
      if (dOld[j] != null) {
        for (int k = 0; k < nk; k++) {
          out[j * nk + k] = idsBySlot[k][dSlot[j]];
        }
      }
    }
    return out;
  }

  /**
   * Returns whether an update of {@code nDirty} slots, {@code nAdded} of them new, patches the
   * previous state (else it builds every subset again, see {@link #publish}).
   */
  private boolean patches(SubsetState<T> prev, int nDirty, int nAdded) {
    return nDirty > 0 && !prev.nodes.isEmpty()
        && nDirty <= rebuildThreshold * (prev.live.size() + nAdded);
  }

  /**
   * Makes the next state: shared, patched or rebuilt, by how many slots changed ({@link
   * #patches}; the id rows are {@code null} unless it patches).
   */
  private void publish(SubsetState<T> prev, List<Node<T>> nodes, Node<T>[] bySlot, int[] dSlot,
      Endpoint[] dOld, Endpoint[] dNew, int[] dOldIds, int[] dNewIds, boolean[] dWeight,
      boolean membership) {
    if (dSlot.length == 0) {
      state = new SubsetState<>(this, nodes, bySlot, prev.indexById, prev.live,
          prev.tables, prev.all, prev.defaultSubset);
    } else if (dOldIds == null) {
      fullBuilds++;
      canon = new Canon<>(factory);
      state = fullBuild.build(nodes, bySlot, canon);
      adopt(state);
    } else {
      incrementalUpdates++;
      state = new Patch<>(this, prev, bySlot, dSlot, dOld, dNew, dOldIds, dNewIds, dWeight,
          ++patchEpoch).run(nodes, membership);
    }
  }

  /**
   * Writes a slot's value ids from its endpoint's labels, and a copy into {@code out} (if not
   * null) from {@code outRow}: one walk over the labels (sorted, as the index keys are) and the
   * index keys together, with no lookup by key.
   *
   * @param had whether the slot held an endpoint before (whose ids are still written)
   */
  private void writeIds(int slot, boolean had, Endpoint ep, int[] out, int outRow) {
    int n = ep.labelCount();
    int l = 0;
    for (int k = 0; k < indexKeys.length; k++) {
      String ik = indexKeys[k];
      int c = 1;
      // skip labels that are no index key
      while (l < n && (c = compare(ep.labelKey(l), ik)) < 0) {
        l++;
      }
      int id = -1;
      if (l < n && c == 0) {
        String value = ep.labelValue(l++);
        int old = had ? idsBySlot[k][slot] : -1;
        // most labels of a changed endpoint keep their value: no lookup for those
        id = old >= 0 && value.equals(valueNames.get(k).get(old)) ? old : valueId(k, value);
      }
      idsBySlot[k][slot] = id;
      if (out != null) {
        out[outRow + k] = id;
      }
    }
  }

  private static int compare(String a, String b) {
    return a == b ? 0 : a.compareTo(b);
  }

  private int valueId(int k, String value) {
    int id = valueIds.get(k).get(value);
    if (id == SlotMap.ABSENT) {
      id = valueNames.get(k).size();
      valueNames.get(k).add(value);
      valueIds.get(k).put(value, id);
      sharedValueIds.get(k).put(value, id);
    }
    return id;
  }

  /**
   * Returns the slots having every {@code keys[i]=values[i]} in a state's index sets ({@code
   * indexById}, by key position and value id): the AND of their Roaring views, smallest first; a
   * set of every endpoint is skipped. May return an index set itself. Safe on any thread: value
   * ids are looked up in maps made for that, and a value newer than the state has no set in it.
   *
   * @param limit every slot is below this
   */
  SlotSet intersect(SlotSet[][] indexById, SlotSet live, String[] keys, String[] values,
      int limit) {
    if (keys.length == 0) {
      return live;
    }
    SlotSet[] sets = new SlotSet[keys.length];
    for (int i = 0; i < keys.length; i++) {
      Integer k = indexKeyPosition.get(keys[i]);
      Integer id = k == null ? null : sharedValueIds.get(k).get(values[i]);
      SlotSet[] row = id == null ? null : indexById[k];
      SlotSet set = row == null || id >= row.length ? null : row[id];
      if (set == null) {
        return SlotSet.EMPTY;
      }
      sets[i] = set;
    }
    Arrays.sort(sets, Comparator.comparingInt(SlotSet::size));
    SlotSet first = sets[0];
    RoaringBitmap r = null;
    for (int i = 1; i < sets.length; i++) {
      if (sets[i].size() == live.size()) {
        continue;
      }
      r = RoaringBitmap.and(r == null ? first.roaring() : r, sets[i].roaring());
      if (r.isEmpty()) {
        return SlotSet.EMPTY;
      }
    }
    return r == null ? first : SlotSet.of(r, limit);
  }

  /**
   * Takes a fully built state as the base of later patches: its subsets by value ids (one
   * {@link ComboMap} per selector) and how many places use each subset.
   */
  private void adopt(SubsetState<T> st) {
    for (int i = 0; i < selectors.length; i++) {
      ComboMap<T> combos = this.combos[i];
      combos.clear();
      int[] pos = selectorKeyPos[i];
      int[] ids = new int[indexKeys.length];
      st.tables[i].forEach((labels, subset) -> {
        for (int m = 0; m < pos.length; m++) {
          ids[pos[m]] = valueIds.get(pos[m]).get(labels.value(m));
        }
        ComboMap.Entry<T> entry = combos.add(ids);
        entry.labels = labels;
        entry.subset = subset;
        canon.acquire(subset);
      });
    }
    canon.acquire(st.all);
    canon.acquire(st.defaultSubset);
  }
}
