// replaced by the scheduling framework
