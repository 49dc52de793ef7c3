//! Doubly linked lists threaded through the tasks, as the kernel threads a
//! `list_head` through `task_struct` (`se.group_node` on `rq->cfs_tasks`, a
//! SHARED_RUNQ shard's `shared_runq_node`): every push, removal and move is O(1),
//! whatever the list holds. A family of lists shares the links, so a task is in at
//! most one list of a family.

use crate::task::TaskId;

const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct TaskLists {
    /// Per list: its first and last task (`NIL` when empty) and its length.
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<u32>,
    /// Per task: the list it is in (`NIL` when none) and its neighbours there.
    list: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
}

fn task(idx: u32) -> Option<TaskId> {
    (idx != NIL).then_some(TaskId(idx))
}

impl TaskLists {
    pub fn new(n_lists: usize, n_tasks: usize) -> TaskLists {
        TaskLists {
            head: vec![NIL; n_lists],
            tail: vec![NIL; n_lists],
            len: vec![0; n_lists],
            list: vec![NIL; n_tasks],
            next: vec![NIL; n_tasks],
            prev: vec![NIL; n_tasks],
        }
    }

    /// The list a task is in, if any.
    pub fn list_of(&self, task: TaskId) -> Option<u32> {
        let list = self.list[task.0 as usize];
        (list != NIL).then_some(list)
    }

    pub fn len(&self, list: u32) -> u32 {
        self.len[list as usize]
    }

    pub fn is_empty(&self, list: u32) -> bool {
        self.len(list) == 0
    }

    pub fn head(&self, list: u32) -> Option<TaskId> {
        task(self.head[list as usize])
    }

    pub fn tail(&self, list: u32) -> Option<TaskId> {
        task(self.tail[list as usize])
    }

    /// The list's tasks, head first.
    pub fn iter(&self, list: u32) -> impl Iterator<Item = TaskId> + '_ {
        std::iter::successors(self.head(list), |at| task(self.next[at.0 as usize]))
    }

    /// `list_add_tail()`.
    pub fn push_back(&mut self, list: u32, task: TaskId) {
        let idx = task.0 as usize;
        debug_assert_eq!(self.list[idx], NIL, "task linked twice");
        let tail = self.tail[list as usize];
        self.prev[idx] = tail;
        self.next[idx] = NIL;
        if tail == NIL {
            self.head[list as usize] = task.0;
        } else {
            self.next[tail as usize] = task.0;
        }
        self.tail[list as usize] = task.0;
        self.len[list as usize] += 1;
        self.list[idx] = list;
    }

    /// `list_add()`: at the head.
    pub fn push_front(&mut self, list: u32, task: TaskId) {
        let idx = task.0 as usize;
        debug_assert_eq!(self.list[idx], NIL, "task linked twice");
        let head = self.head[list as usize];
        self.next[idx] = head;
        self.prev[idx] = NIL;
        if head == NIL {
            self.tail[list as usize] = task.0;
        } else {
            self.prev[head as usize] = task.0;
        }
        self.head[list as usize] = task.0;
        self.len[list as usize] += 1;
        self.list[idx] = list;
    }

    /// `list_del_init()`: takes the task out of its list, if it is in one.
    pub fn unlink(&mut self, task: TaskId) {
        let idx = task.0 as usize;
        let list = self.list[idx];
        if list == NIL {
            return;
        }
        let (prev, next) = (self.prev[idx], self.next[idx]);
        if prev == NIL {
            self.head[list as usize] = next;
        } else {
            self.next[prev as usize] = next;
        }
        if next == NIL {
            self.tail[list as usize] = prev;
        } else {
            self.prev[next as usize] = prev;
        }
        self.len[list as usize] -= 1;
        self.list[idx] = NIL;
        self.prev[idx] = NIL;
        self.next[idx] = NIL;
    }

    /// `list_move()`: to the head of `list`, from wherever it was.
    pub fn move_to_front(&mut self, list: u32, task: TaskId) {
        self.unlink(task);
        self.push_front(list, task);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(lists: &TaskLists, list: u32) -> Vec<u32> {
        lists.iter(list).map(|task| task.0).collect()
    }

    #[test]
    fn pushes_moves_and_removals_keep_each_list_in_order() {
        let mut lists = TaskLists::new(2, 6);
        for task in 0..3 {
            lists.push_back(0, TaskId(task));
        }
        lists.push_front(0, TaskId(3));
        assert_eq!(ids(&lists, 0), [3, 0, 1, 2]);
        lists.unlink(TaskId(1));
        assert_eq!(ids(&lists, 0), [3, 0, 2]);
        lists.move_to_front(0, TaskId(2));
        assert_eq!(ids(&lists, 0), [2, 3, 0]);
        assert_eq!(
            (lists.head(0), lists.tail(0)),
            (Some(TaskId(2)), Some(TaskId(0)))
        );
        lists.move_to_front(1, TaskId(0));
        assert_eq!((ids(&lists, 0), ids(&lists, 1)), (vec![2, 3], vec![0]));
        assert_eq!((lists.len(0), lists.list_of(TaskId(0))), (2, Some(1)));
        lists.unlink(TaskId(0));
        lists.unlink(TaskId(0));
        assert!(lists.is_empty(1) && lists.tail(1).is_none() && lists.list_of(TaskId(0)).is_none());
    }
}
